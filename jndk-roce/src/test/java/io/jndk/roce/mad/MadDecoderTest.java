package io.jndk.roce.mad;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.Hex;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketEncoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.codec.RoceOpcode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** MAD validation errors, GSI checks, and building a REQ from scratch the way rdma_cm does. */
class MadDecoderTest {

    private final MadDecoder mad = new MadDecoder();

    private static ByteBuffer rtu() {
        ByteBuffer b = ByteBuffer.allocate(MadHeaderFlyweight.MAD_LENGTH);
        ReadyToUseFlyweight rtu = new ReadyToUseFlyweight().wrap(b, 0);
        rtu.initialize(0x1234L);
        rtu.localCommId(1);
        rtu.remoteCommId(2);
        return b;
    }

    @Test
    void headerChecksInOrder() {
        ByteBuffer b = rtu();
        assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.NONE);
        assertThat(mad.attribute()).isEqualTo(CmAttribute.RTU);
        assertThat(mad.rtu()).isNotNull();
        assertThat(mad.req()).isNull();
        assertThat(mad.header().transactionId()).isEqualTo(0x1234L);
        assertThat(mad.decode(b, 0, 255)).isEqualTo(MadError.TRUNCATED);
        assertThat(mad.message()).isNull();
        assertThat(mad.decode(b, 1, 256)).isEqualTo(MadError.TRUNCATED);
        assertThat(mad.decode(b, -1, 256)).isEqualTo(MadError.TRUNCATED);
        assertThat(mad.decode(null, 0, 256)).isEqualTo(MadError.TRUNCATED);
        b.put(0, (byte) 2);
        assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.BAD_BASE_VERSION);
        b.put(0, (byte) 1).put(1, (byte) 0x81);
        assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.NOT_CM);
        b.put(1, (byte) 7).put(2, (byte) 1);
        assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.BAD_CLASS_VERSION);
        b.put(2, (byte) 2).put(3, (byte) 0x01);
        assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.BAD_METHOD);
        b.put(3, (byte) 3);
        for (int attribute : new int[] {0x0001, 0x000F, 0x0017, 0x0019, 0xFFFF}) {
            b.putShort(16, (short) attribute);
            assertThat(mad.decode(b, 0, 256)).as("attribute 0x%04x", attribute).isEqualTo(MadError.UNKNOWN_ATTRIBUTE);
        }
        for (CmAttribute a : CmAttribute.values()) {
            b.putShort(16, (short) a.id());
            assertThat(mad.decode(b, 0, 256)).isEqualTo(MadError.NONE);
            assertThat(mad.message().attribute()).isEqualTo(a);
            assertThat(mad.message().privateDataLength()).isEqualTo(a.privateDataLength());
        }
        assertThat(CmAttribute.values()).extracting(CmAttribute::privateDataLength).containsExactly(92, 222, 148, 196, 224, 220, 224);
    }

    @Test
    void gsiChecks() {
        RocePacketEncoder e = new RocePacketEncoder();
        RocePacketDecoder d = new RocePacketDecoder();
        ByteBuffer p = ByteBuffer.allocate(GsiPacket.LENGTH);
        int at = GsiPacket.begin(e, p, 0, 7);
        p.put(at, rtu(), 0, 256);
        assertThat(e.finish()).isEqualTo(280);
        assertThat(d.decode(p, 0, 280)).isEqualTo(RocePacketError.NONE);
        assertThat(mad.decodeGsi(d)).isEqualTo(MadError.NONE);
        assertThat(Hex.of(p, 0, 20)).as("BTH and DETH as rxe sends them").isEqualTo("6400ffff00000001800000078001000000000001");
        p.put(7, (byte) 2);
        d.decode(p, 0, 280);
        assertThat(mad.decodeGsi(d)).as("not to QP1").isEqualTo(MadError.NOT_GSI);
        p.put(7, (byte) 1).put(19, (byte) 3);
        d.decode(p, 0, 280);
        assertThat(mad.decodeGsi(d)).as("not from QP1").isEqualTo(MadError.NOT_GSI);
        p.put(19, (byte) 1).put(12, (byte) 0);
        d.decode(p, 0, 280);
        assertThat(mad.decodeGsi(d)).as("Q_Key").isEqualTo(MadError.NOT_GSI);
        p.put(12, (byte) 0x80);
        d.decode(p, 0, 276);
        assertThat(mad.decodeGsi(d)).as("a MAD is 256 octets").isEqualTo(MadError.NOT_GSI);
        p.put(0, (byte) RoceOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.code());
        assertThat(d.decode(p, 0, 280)).isEqualTo(RocePacketError.NONE);
        assertThat(mad.decodeGsi(d)).isEqualTo(MadError.NOT_GSI);
    }

    @Test
    void serviceIds() {
        assertThat(CmServiceId.tcp(7174)).isEqualTo(0x0000000001061c06L);
        assertThat(CmServiceId.of(CmServiceId.PS_UDP, 1)).isEqualTo(0x0000000001110001L);
        assertThat(CmServiceId.portSpace(0x0000000001061c06L)).isEqualTo(CmServiceId.PS_TCP);
        assertThat(CmServiceId.isTcp(0x0000000001061c06L)).isTrue();
        assertThat(CmServiceId.isTcp(0x0000000101061c06L)).isFalse();
        assertThat(CmServiceId.isTcp(0x0000000001111c06L)).isFalse();
    }

    @Test
    void aReqBuiltFromScratchMatchesTheInjectedOneOfTheDgramCapture() {
        // the REQ the host peer injected (dgram_guest_eth0.pcap frame 4): rxe's REQ template, GIDs and addresses of 192.0.2.1
        java.util.List<MadDecoder> mads = CmCaptureTest.mads("dgram_guest_eth0.pcap");
        ConnectRequestFlyweight captured = mads.get(0).req();
        assertThat(captured).isNotNull();
        ByteBuffer b = ByteBuffer.allocate(256);
        ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(b, 0);
        req.initialize(captured.header().transactionId());
        req.localCommId(captured.localCommId());
        req.serviceId(CmServiceId.tcp(7174));
        req.localCaGuid(captured.localCaGuid());
        req.localQpn(captured.localQpn());
        req.responderResources(1);
        req.initiatorDepth(1);
        req.remoteCmResponseTimeout(20);
        req.startingPsn(captured.startingPsn());
        req.localCmResponseTimeout(20);
        req.retryCount(7);
        req.pkey(0xFFFF);
        req.pathMtu(3);
        req.rnrRetryCount(7);
        req.maxCmRetries(15);
        byte[] gid = new byte[16];
        captured.primaryPath().getLocalGid(gid, 0);
        req.primaryPath().localLid(0xFFFF).remoteLid(0xFFFF).putLocalGid(gid, 0);
        captured.primaryPath().getRemoteGid(gid, 0);
        req.primaryPath().putRemoteGid(gid, 0).flowLabel(captured.primaryPath().flowLabel()).hopLimit(64).localAckTimeout(19);
        CmaHeader cma = new CmaHeader().wrap(b, req.privateDataIndex());
        cma.ipv4(new CmaHeader().wrap(captured.buffer(), captured.privateDataIndex()).port(), 0xC0000201, 0xC000020A);
        assertThat(Hex.of(b, 0, 256)).isEqualTo(Hex.of(captured.buffer(), captured.offset(), 256));
        assertThat(Icrc.LENGTH).isEqualTo(4);
    }
}
