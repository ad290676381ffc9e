package io.jndk.roce.mad;

import java.nio.ByteBuffer;

/**
 * Re-encodes a decoded CM MAD field by field, through the getters and setters, into a zeroed 256-octet buffer:
 * equal octets mean every non-reserved field is reachable and written back where it was read.
 */
public final class MadCopy {

    private final ConnectRequestFlyweight req = new ConnectRequestFlyweight();
    private final MraFlyweight mra = new MraFlyweight();
    private final ConnectRejectFlyweight rej = new ConnectRejectFlyweight();
    private final ConnectReplyFlyweight rep = new ConnectReplyFlyweight();
    private final ReadyToUseFlyweight rtu = new ReadyToUseFlyweight();
    private final DisconnectRequestFlyweight dreq = new DisconnectRequestFlyweight();
    private final DisconnectReplyFlyweight drep = new DisconnectReplyFlyweight();
    private final byte[] block = new byte[CmMessageFlyweight.DATA_LENGTH];

    /** Creates a copier. */
    public MadCopy() {
    }

    /**
     * @param d a decoder whose last result was {@code NONE}
     * @param out the destination
     * @param offset where the MAD goes
     */
    public void copy(MadDecoder d, ByteBuffer out, int offset) {
        for (int i = 0; i < MadHeaderFlyweight.MAD_LENGTH; i++) {
            out.put(offset + i, (byte) 0);
        }
        MadHeaderFlyweight h = d.header();
        new MadHeaderFlyweight().wrap(out, offset).baseVersion(h.baseVersion()).mgmtClass(h.mgmtClass())
            .classVersion(h.classVersion()).method(h.method()).status(h.status()).classSpecific(h.classSpecific())
            .transactionId(h.transactionId()).attributeId(h.attributeId()).reserved(h.reserved())
            .attributeModifier(h.attributeModifier());
        CmMessageFlyweight to = switch (d.attribute()) {
            case REQ -> copyReq(d.req(), req.wrap(out, offset));
            case MRA -> copyMra(d.mra(), mra.wrap(out, offset));
            case REJ -> copyRej(d.rej(), rej.wrap(out, offset));
            case REP -> copyRep(d.rep(), rep.wrap(out, offset));
            case RTU -> copyPaired(d.rtu(), rtu.wrap(out, offset));
            case DREQ -> {
                copyPaired(d.dreq(), dreq.wrap(out, offset));
                dreq.remoteQpn(d.dreq().remoteQpn());
                yield dreq;
            }
            case DREP -> copyPaired(d.drep(), drep.wrap(out, offset));
        };
        d.message().getPrivateData(block, 0);
        to.putPrivateData(block, 0, to.privateDataLength());
    }

    private static CmMessageFlyweight copyPaired(CmPairedMessageFlyweight from, CmMessageFlyweight to) {
        to.localCommId(from.localCommId());
        ((CmPairedMessageFlyweight) to).remoteCommId(from.remoteCommId());
        return to;
    }

    private CmMessageFlyweight copyReq(ConnectRequestFlyweight f, ConnectRequestFlyweight t) {
        t.localCommId(f.localCommId());
        t.reserved4(f.reserved4());
        t.vendorId(f.vendorId());
        t.serviceId(f.serviceId());
        t.localCaGuid(f.localCaGuid());
        t.localQkey(f.localQkey());
        t.localQpn(f.localQpn());
        t.responderResources(f.responderResources());
        t.localEecn(f.localEecn());
        t.initiatorDepth(f.initiatorDepth());
        t.remoteEecn(f.remoteEecn());
        t.remoteCmResponseTimeout(f.remoteCmResponseTimeout());
        t.transportServiceType(f.transportServiceType());
        t.endToEndFlowControl(f.endToEndFlowControl());
        t.startingPsn(f.startingPsn());
        t.localCmResponseTimeout(f.localCmResponseTimeout());
        t.retryCount(f.retryCount());
        t.pkey(f.pkey());
        t.pathMtu(f.pathMtu());
        t.rdcExists(f.rdcExists());
        t.rnrRetryCount(f.rnrRetryCount());
        t.maxCmRetries(f.maxCmRetries());
        t.srq(f.srq());
        t.extendedTransportType(f.extendedTransportType());
        copyPath(f.primaryPath(), t.primaryPath());
        copyPath(f.alternatePath(), t.alternatePath());
        t.sapSupported(f.sapSupported());
        return t;
    }

    private void copyPath(CmPathFlyweight f, CmPathFlyweight t) {
        t.localLid(f.localLid()).remoteLid(f.remoteLid());
        f.getLocalGid(block, 0);
        t.putLocalGid(block, 0);
        f.getRemoteGid(block, 0);
        t.putRemoteGid(block, 0);
        t.flowLabel(f.flowLabel()).packetRate(f.packetRate()).trafficClass(f.trafficClass()).hopLimit(f.hopLimit()).sl(f.sl())
            .subnetLocal(f.subnetLocal()).localAckTimeout(f.localAckTimeout());
    }

    private static CmMessageFlyweight copyMra(MraFlyweight f, MraFlyweight t) {
        copyPaired(f, t);
        t.messageMraed(f.messageMraed());
        t.serviceTimeout(f.serviceTimeout());
        return t;
    }

    private CmMessageFlyweight copyRej(ConnectRejectFlyweight f, ConnectRejectFlyweight t) {
        copyPaired(f, t);
        t.messageRejected(f.messageRejected());
        t.rejectInfoLength(f.rejectInfoLength());
        t.reason(f.reason());
        f.getAri(block, 0);
        t.putAri(block, 0);
        return t;
    }

    private static CmMessageFlyweight copyRep(ConnectReplyFlyweight f, ConnectReplyFlyweight t) {
        copyPaired(f, t);
        t.localQkey(f.localQkey());
        t.localQpn(f.localQpn());
        t.vendorId(f.vendorId());
        t.localEecn(f.localEecn());
        t.startingPsn(f.startingPsn());
        t.responderResources(f.responderResources());
        t.initiatorDepth(f.initiatorDepth());
        t.targetAckDelay(f.targetAckDelay());
        t.failoverAccepted(f.failoverAccepted());
        t.endToEndFlowControl(f.endToEndFlowControl());
        t.rnrRetryCount(f.rnrRetryCount());
        t.srq(f.srq());
        t.localCaGuid(f.localCaGuid());
        return t;
    }
}
