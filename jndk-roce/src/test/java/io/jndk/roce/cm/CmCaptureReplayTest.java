package io.jndk.roce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.roce.codec.Hex;
import io.jndk.roce.codec.Icrc;
import io.jndk.roce.codec.Pcap;
import io.jndk.roce.codec.RocePacketDecoder;
import io.jndk.roce.codec.RocePacketError;
import io.jndk.roce.mad.CmAttribute;
import io.jndk.roce.mad.CmaHeader;
import io.jndk.roce.mad.ConnectReplyFlyweight;
import io.jndk.roce.mad.ConnectRequestFlyweight;
import io.jndk.roce.mad.DisconnectRequestFlyweight;
import io.jndk.roce.mad.MadDecoder;
import io.jndk.roce.mad.MadError;
import io.jndk.roce.mad.MadHeaderFlyweight;
import io.jndk.roce.mad.ReadyToUseFlyweight;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agents replay the rdma_cm connections of the rxe captures: given the captured per-connection values (IDs,
 * QPNs, PSNs, GUIDs, ports, private data), the REQ, REP, RTU, DREQ and DREP they build are the captured MADs octet
 * for octet, and what they report of the captured peer messages is what rxe sent.
 */
class CmCaptureReplayTest {

    /** One captured CM MAD. */
    record Mad(int frame, Gid from, Gid to, CmAttribute attribute, byte[] octets) {

        ByteBuffer buffer() {
            return ByteBuffer.wrap(octets.clone());
        }

        long transactionId() {
            return ByteBuffer.wrap(octets).getLong(MadHeaderFlyweight.TRANSACTION_ID_OFFSET);
        }

        String hex() {
            return Hex.of(ByteBuffer.wrap(octets), 0, octets.length);
        }
    }

    /** Every CM MAD of a capture with a correct ICRC, in order. */
    static List<Mad> mads(String file) {
        List<Mad> out = new ArrayList<>();
        Icrc icrc = new Icrc();
        RocePacketDecoder packet = new RocePacketDecoder();
        MadDecoder mad = new MadDecoder();
        for (Pcap.Datagram g : Pcap.read(file)) {
            ByteBuffer frame = g.buffer();
            if (g.ipVersion() != 4 || packet.decode(frame, g.payloadOffset(), g.payloadLength()) != RocePacketError.NONE
                || icrc.ipv4Frame(frame, g.ipOffset()) != packet.icrc() || mad.decodeGsi(packet) != MadError.NONE) {
                continue;
            }
            byte[] octets = new byte[MadHeaderFlyweight.MAD_LENGTH];
            frame.get(packet.payloadOffset(), octets);
            out.add(new Mad(g.frame(), Gid.ipv4Mapped(frame.getInt(g.ipOffset() + 12)), Gid.ipv4Mapped(frame.getInt(g.ipOffset() + 16)),
                mad.attribute(), octets));
        }
        return out;
    }

    /** An ID source that gives one communication ID and one transaction ID, as captured. */
    static CmIdSource ids(int commId, long transactionId) {
        return new CmIdSource() {
            @Override
            public int nextCommId() {
                return commId;
            }

            @Override
            public long transactionId(int localCommId) {
                return transactionId;
            }
        };
    }

    /** The captured connections: per transaction ID, its MADs. */
    static Map<Long, List<Mad>> connections(String file) {
        Map<Long, List<Mad>> byTid = new TreeMap<>();
        for (Mad m : mads(file)) {
            byTid.computeIfAbsent(m.transactionId(), t -> new ArrayList<>()).add(m);
        }
        return byTid;
    }

    /** The captured connections that got as far as a message. */
    static List<List<Mad>> connectionsWith(String file, CmAttribute attribute) {
        return connections(file).values().stream().filter(c -> c.stream().anyMatch(m -> m.attribute() == attribute)).toList();
    }

    static Mad first(List<Mad> mads, CmAttribute attribute) {
        return mads.stream().filter(m -> m.attribute() == attribute).findFirst().orElseThrow();
    }

    static byte[] privateData(Mad m, int offset, int length) {
        byte[] b = new byte[length];
        System.arraycopy(m.octets(), MadHeaderFlyweight.LENGTH + offset, b, 0, length);
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pair_rping.pcap", "pair_write_s4096_n20_R.pcap", "pair_read_s4096_n20_R.pcap",
        "pair_send_s4096_n20_R.pcap", "pair_small_br0.pcapng"})
    void activeSideBuildsTheCapturedReqAndRtu(String file) {
        int replayed = 0;
        for (List<Mad> conn : connectionsWith(file, CmAttribute.RTU)) {
            Mad reqMad = first(conn, CmAttribute.REQ);
            ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(reqMad.buffer(), 0);
            CmaHeader cma = new CmaHeader().wrap(req.buffer(), req.privateDataIndex());
            // ib_cm's transaction ID: agent number above the communication ID read little-endian
            assertThat((int) reqMad.transactionId()).isEqualTo(Integer.reverseBytes(req.localCommId()));

            List<ByteBuffer> out = new ArrayList<>();
            MadSink sink = (to, mad) -> {
                assertThat(to).isEqualTo(reqMad.to());
                out.add(copy(mad));
            };
            CmAgent agent = new CmAgent(reqMad.from(), CmConfig.rdmaCm(req.localCaGuid()), new VirtualClock(),
                ids(req.localCommId(), reqMad.transactionId()), sink);
            Recorder r = new Recorder();
            CmConnection c = agent.newConnection(r);
            byte[] consumer = privateData(reqMad, ConnectRequestFlyweight.PRIVATE_DATA + CmaHeader.LENGTH, CmAgent.REQ_PRIVATE_DATA);
            assertThat(c.connect(new ConnectParams(reqMad.to(), cma.port(), (int) req.serviceId() & 0xFFFF, req.localQpn(),
                req.startingPsn(), req.responderResources(), req.initiatorDepth(), consumer))).isEqualTo(CmStatus.OK);
            assertThat(Hex.of(out.get(0), 0, 256)).as("%s REQ of frame %d", file, reqMad.frame()).isEqualTo(reqMad.hex());

            Mad repMad = first(conn, CmAttribute.REP);
            ConnectReplyFlyweight rep = new ConnectReplyFlyweight().wrap(repMad.buffer(), 0);
            agent.receive(repMad.from(), repMad.buffer(), 0, 256);
            ConnectReply reply = r.only(CmEvent.ReplyReceived.class).reply();
            assertThat(reply.remoteQpn()).isEqualTo(rep.localQpn());
            assertThat(reply.startingPsn()).isEqualTo(rep.startingPsn());
            assertThat(reply.responderResources()).isEqualTo(rep.responderResources());
            assertThat(reply.initiatorDepth()).isEqualTo(rep.initiatorDepth());
            assertThat(reply.remoteCaGuid()).isEqualTo(rep.localCaGuid());
            assertThat(reply.privateData()).isEqualTo(privateData(repMad, ConnectReplyFlyweight.PRIVATE_DATA, 196));

            Mad rtuMad = first(conn, CmAttribute.RTU);
            assertThat(c.complete(privateData(rtuMad, ReadyToUseFlyweight.PRIVATE_DATA, 224))).isEqualTo(CmStatus.OK);
            assertThat(Hex.of(out.get(1), 0, 256)).as("%s RTU of frame %d", file, rtuMad.frame()).isEqualTo(rtuMad.hex());
            assertThat(c.state()).isEqualTo(CmState.ESTABLISHED);
            replayed++;
        }
        assertThat(replayed).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pair_rping.pcap", "pair_write_s4096_n20_R.pcap", "pair_read_s4096_n20_R.pcap",
        "pair_send_s4096_n20_R.pcap", "pair_small_br0.pcapng", "dgram_guest_eth0.pcap"})
    void passiveSideReportsTheCapturedReqAndBuildsTheCapturedRep(String file) {
        int replayed = 0;
        for (List<Mad> conn : connectionsWith(file, CmAttribute.REP)) {
            Mad reqMad = first(conn, CmAttribute.REQ);
            Mad repMad = first(conn, CmAttribute.REP);
            ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(reqMad.buffer(), 0);
            ConnectReplyFlyweight rep = new ConnectReplyFlyweight().wrap(repMad.buffer(), 0);
            List<ByteBuffer> out = new ArrayList<>();
            MadSink sink = (to, mad) -> out.add(copy(mad));
            CmAgent agent = new CmAgent(reqMad.to(), CmConfig.rdmaCm(rep.localCaGuid()), new VirtualClock(),
                ids(rep.localCommId(), 0), sink);
            Recorder r = new Recorder();
            int port = (int) req.serviceId() & 0xFFFF;
            agent.listen(port, r);
            agent.receive(reqMad.from(), reqMad.buffer(), 0, 256);
            CmEvent.RequestReceived e = r.only(CmEvent.RequestReceived.class);
            IncomingConnect q = e.request();
            CmaHeader cma = new CmaHeader().wrap(req.buffer(), req.privateDataIndex());
            assertThat(q.peer()).isEqualTo(reqMad.from());
            assertThat(q.ipVersion()).isEqualTo(4);
            assertThat(ByteBuffer.wrap(q.sourceAddress()).getInt()).isEqualTo(cma.sourceIpv4()).isEqualTo(reqMad.from().ipv4());
            assertThat(ByteBuffer.wrap(q.destinationAddress()).getInt()).isEqualTo(cma.destinationIpv4())
                .isEqualTo(reqMad.to().ipv4());
            assertThat(q.sourcePort()).isEqualTo(cma.port());
            assertThat(q.destinationPort()).isEqualTo(port);
            assertThat(q.remoteQpn()).isEqualTo(req.localQpn());
            assertThat(q.startingPsn()).isEqualTo(req.startingPsn());
            assertThat(q.responderResources()).isEqualTo(req.responderResources());
            assertThat(q.initiatorDepth()).isEqualTo(req.initiatorDepth());
            assertThat(q.pathMtu()).isEqualTo(3);
            assertThat(q.privateData()).isEqualTo(privateData(reqMad, ConnectRequestFlyweight.PRIVATE_DATA + CmaHeader.LENGTH, 56));

            CmConnection s = e.connection();
            assertThat(s.accept(new AcceptParams(rep.localQpn(), rep.startingPsn(), rep.responderResources(), rep.initiatorDepth(),
                privateData(repMad, ConnectReplyFlyweight.PRIVATE_DATA, 196)))).isEqualTo(CmStatus.OK);
            assertThat(Hex.of(out.get(0), 0, 256)).as("%s REP of frame %d", file, repMad.frame()).isEqualTo(repMad.hex());
            conn.stream().filter(m -> m.attribute() == CmAttribute.RTU).findFirst().ifPresent(rtu -> {
                agent.receive(rtu.from(), rtu.buffer(), 0, 256);
                assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
                assertThat(r.only(CmEvent.Established.class).connection()).isSameAs(s);
            });
            replayed++;
        }
        assertThat(replayed).isPositive();
    }

    @Test
    void rpingDisconnectIsTheCapturedDreqAndDrep() {
        List<Mad> conn = mads("pair_rping.pcap");
        Mad reqMad = first(conn, CmAttribute.REQ);
        Mad repMad = first(conn, CmAttribute.REP);
        Mad dreqMad = first(conn, CmAttribute.DREQ);
        Mad drepMad = first(conn, CmAttribute.DREP);
        ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(reqMad.buffer(), 0);
        ConnectReplyFlyweight rep = new ConnectReplyFlyweight().wrap(repMad.buffer(), 0);
        assertThat(dreqMad.from()).as("rping's client disconnects").isEqualTo(reqMad.from());

        // the active side (192.0.2.11) sends the captured DREQ and takes the captured DREP
        List<ByteBuffer> outA = new ArrayList<>();
        CmAgent a = new CmAgent(reqMad.from(), CmConfig.rdmaCm(req.localCaGuid()), new VirtualClock(),
            ids(req.localCommId(), reqMad.transactionId()), (to, mad) -> outA.add(copy(mad)));
        Recorder ra = new Recorder();
        CmConnection c = a.newConnection(ra);
        CmaHeader cma = new CmaHeader().wrap(req.buffer(), req.privateDataIndex());
        c.connect(new ConnectParams(reqMad.to(), cma.port(), 7174, req.localQpn(), req.startingPsn(), 1, 1, null));
        a.receive(repMad.from(), repMad.buffer(), 0, 256);
        c.complete(null);
        assertThat(c.disconnect(privateData(dreqMad, DisconnectRequestFlyweight.PRIVATE_DATA, 220))).isEqualTo(CmStatus.OK);
        assertThat(Hex.of(outA.get(2), 0, 256)).as("DREQ").isEqualTo(dreqMad.hex());
        a.receive(drepMad.from(), drepMad.buffer(), 0, 256);
        assertThat(ra.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.LOCAL);

        // the passive side (192.0.2.10) answers the captured DREQ with the captured DREP
        List<ByteBuffer> outB = new ArrayList<>();
        CmAgent b = new CmAgent(reqMad.to(), CmConfig.rdmaCm(rep.localCaGuid()), new VirtualClock(), ids(rep.localCommId(), 0),
            (to, mad) -> outB.add(copy(mad)));
        Recorder rb = new Recorder();
        b.listen(7174, rb);
        b.receive(reqMad.from(), reqMad.buffer(), 0, 256);
        rb.only(CmEvent.RequestReceived.class).connection().accept(new AcceptParams(rep.localQpn(), rep.startingPsn(), 1, 1, null));
        b.receive(reqMad.from(), first(conn, CmAttribute.RTU).buffer(), 0, 256);
        b.receive(dreqMad.from(), dreqMad.buffer(), 0, 256);
        assertThat(Hex.of(outB.get(1), 0, 256)).as("DREP").isEqualTo(drepMad.hex());
        assertThat(rb.only(CmEvent.Disconnected.class).cause()).isEqualTo(DisconnectCause.PEER);
    }

    @Test
    void capturedConsumerRejectIsReportedAsRefused() {
        // dgram capture: rxe answered the injected REQ with REP, then rejected (rping killed: reason 28)
        List<Mad> conn = mads("dgram_guest_eth0.pcap");
        Mad reqMad = first(conn, CmAttribute.REQ);
        Mad rejMad = first(conn, CmAttribute.REJ);
        ConnectRequestFlyweight req = new ConnectRequestFlyweight().wrap(reqMad.buffer(), 0);
        CmAgent a = new CmAgent(reqMad.from(), CmConfig.rdmaCm(req.localCaGuid()), new VirtualClock(),
            ids(req.localCommId(), reqMad.transactionId()), (to, mad) -> {
            });
        Recorder r = new Recorder();
        CmConnection c = a.newConnection(r);
        c.connect(new ConnectParams(reqMad.to(), 0x8068, 7174, req.localQpn(), req.startingPsn(), 1, 1, null));
        a.receive(first(conn, CmAttribute.REP).from(), first(conn, CmAttribute.REP).buffer(), 0, 256);
        a.receive(rejMad.from(), rejMad.buffer(), 0, 256);
        CmEvent.Rejected rejected = r.only(CmEvent.Rejected.class);
        assertThat(rejected.reason()).isEqualTo(28);
        assertThat(rejected.during()).isEqualTo(CmState.REP_RECEIVED);
    }

    static ByteBuffer copy(ByteBuffer mad) {
        byte[] b = new byte[MadHeaderFlyweight.MAD_LENGTH];
        mad.get(0, b);
        return ByteBuffer.wrap(b);
    }
}
