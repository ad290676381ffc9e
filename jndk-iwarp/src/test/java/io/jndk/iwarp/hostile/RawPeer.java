package io.jndk.iwarp.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.cm.CmTestSupport;
import io.jndk.iwarp.cm.Rtr;
import io.jndk.iwarp.cm.RtrType;
import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.iwarp.codec.TerminateFlyweight;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A raw TCP peer (a plain {@link Socket} from {@link CmTestSupport#rawClient}) that does the MPA exchange by hand and
 * then writes whatever FPDUs a test builds, valid or not.
 */
final class RawPeer implements AutoCloseable {

    static final String REQUEST_KEY = "4d504120494420526571204672616d65";
    static final String REPLY_KEY = "4d504120494420526570204672616d65";

    final Socket socket;
    final FpduEncoder encoder;
    final boolean crc;

    private RawPeer(Socket socket, boolean crc) {
        this.socket = socket;
        this.crc = crc;
        this.encoder = new FpduEncoder(crc);
    }

    /** A TCP connection to {@code to} that has sent nothing yet. */
    static Socket connect(InetSocketAddress to) throws IOException {
        return CmTestSupport.rawClient(to);
    }

    /**
     * Connects and does a valid MPA v2 exchange in jndk's peer-to-peer model: Request (IRD 1, ORD {@code ord},
     * Write RTR; C = {@code crc}), the Reply (must accept), then the Write RTR.
     */
    static RawPeer establish(InetSocketAddress to, boolean crc, int ord) throws IOException {
        return establish(to, crc, 1, ord);
    }

    /** As {@link #establish(InetSocketAddress, boolean, int)}, announcing IRD {@code ird}. */
    static RawPeer establish(InetSocketAddress to, boolean crc, int ird, int ord) throws IOException {
        Socket s = connect(to);
        try {
            String flags = crc ? "50" : "10";
            s.getOutputStream().write(CmTestSupport.hex(REQUEST_KEY + flags + "020004"
                + String.format("%04x%04x", 0x8000 | ird, 0xC000 | ord)));
            byte[] header = CmTestSupport.readExactly(s, MpaFrameFlyweight.HEADER_LENGTH);
            MpaFrameFlyweight reply = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(header), 0);
            assertThat(reply.hasKey(MpaFrameKind.REPLY)).as("Reply key").isTrue();
            assertThat(reply.reject()).as("Reply rejects").isFalse();
            assertThat(reply.crc()).as("CRC as asked").isEqualTo(crc);
            CmTestSupport.readExactly(s, reply.privateDataLength());
            RawPeer p = new RawPeer(s, crc);
            p.write(bytes(Rtr.frame(RtrType.WRITE, crc)));
            return p;
        } catch (IOException | RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    /**
     * Connects and does a valid MPA v2 exchange in the client-server model (siw's default): Request (IRD 1, ORD 1,
     * no peer-to-peer flag, no RTR offered), the Reply (must accept); nothing is sent after it.
     */
    static RawPeer establishClientServer(InetSocketAddress to) throws IOException {
        Socket s = connect(to);
        try {
            s.getOutputStream().write(CmTestSupport.hex(REQUEST_KEY + "10" + "020004" + "0001" + "0001"));
            byte[] header = CmTestSupport.readExactly(s, MpaFrameFlyweight.HEADER_LENGTH);
            MpaFrameFlyweight reply = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(header), 0);
            assertThat(reply.hasKey(MpaFrameKind.REPLY)).as("Reply key").isTrue();
            assertThat(reply.reject()).as("Reply rejects").isFalse();
            CmTestSupport.readExactly(s, reply.privateDataLength());
            return new RawPeer(s, false);
        } catch (IOException | RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    void write(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
    }

    /** An RDMA Write of {@code payload} to {@code stag}/{@code to}. */
    byte[] rdmaWrite(int stag, long to, byte[] payload) {
        return tagged(RdmapOpcode.RDMA_WRITE, stag, to, payload);
    }

    /** A single-segment RDMA Read Response carrying {@code payload} to the Read's sink {@code stag}/{@code to}. */
    byte[] readResponse(int stag, long to, byte[] payload) {
        return tagged(RdmapOpcode.RDMA_READ_RESPONSE, stag, to, payload);
    }

    private byte[] tagged(RdmapOpcode opcode, int stag, long to, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(FpduFlyweight.fpduLength(14 + payload.length) + 8);
        return Arrays.copyOf(b.array(), encoder.tagged(b, 0, opcode, true, stag, to, ByteBuffer.wrap(payload), 0,
            payload.length));
    }

    /** A Send on queue {@code qn} with the given MSN and MO. */
    byte[] send(int qn, int msn, int mo, boolean last, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(FpduFlyweight.fpduLength(DdpUntaggedHeaderFlyweight.LENGTH + payload.length) + 8);
        return Arrays.copyOf(b.array(), encoder.untagged(b, 0, RdmapOpcode.SEND, last, 0, qn, msn, mo,
            ByteBuffer.wrap(payload), 0, payload.length));
    }

    /** A valid single-segment Send with MSN {@code msn}. */
    byte[] send(int msn, byte[] payload) {
        return send(0, msn, 0, true, payload);
    }

    /** An RDMA Read Request of {@code size} octets from {@code sourceStag}/{@code sourceTo}. */
    byte[] readRequest(int msn, int size, int sourceStag, long sourceTo) {
        ByteBuffer b = ByteBuffer.allocate(64);
        return Arrays.copyOf(b.array(), encoder.readRequest(b, 0, msn, 0x1234_5678, 0, size, sourceStag, sourceTo));
    }

    /** A Terminate with the given code and no attachment. */
    byte[] terminate(TerminateCode code) {
        ByteBuffer b = ByteBuffer.allocate(64);
        return Arrays.copyOf(b.array(), encoder.terminate(b, 0, 1, code, false, 0, null, 0, 0));
    }

    /** Recomputes the CRC of a single FPDU after a test changed its octets (no-op without CRC). */
    byte[] reseal(byte[] fpdu) {
        if (crc) {
            new FpduFlyweight().wrap(ByteBuffer.wrap(fpdu), 0).seal(true, new CRC32C());
        }
        return fpdu;
    }

    /** A Terminate received from jndk, decoded. */
    record Terminate(int layer, int errorType, int errorCode, boolean ddpHeaderCopied, boolean rdmaHeaderCopied,
                     byte[] fpdu) {
        TerminateCode code() {
            return TerminateCode.of(layer, errorType, errorCode);
        }

        @Override
        public String toString() {
            return String.format("Terminate[layer %d etype %d code 0x%02X D=%b R=%b]", layer, errorType, errorCode,
                ddpHeaderCopied, rdmaHeaderCopied);
        }
    }

    /**
     * Reads one FPDU that must be a Terminate (untagged, opcode 7, QN 2, MSN 1, MO 0), then half-closes and checks
     * that nothing follows it before jndk closes the connection.
     */
    Terminate readTerminateThenClose() throws IOException {
        byte[] fpdu = readFpdu();
        while ((fpdu[3] & 0x0F) == RdmapOpcode.RDMA_READ_RESPONSE.code()) {
            fpdu = readFpdu(); // Read Responses jndk sent before it found the error
        }
        Terminate out = decodeTerminate(fpdu);
        socket.shutdownOutput();
        assertThat(CmTestSupport.readUntilClose(socket)).as("nothing after the Terminate").isEmpty();
        return out;
    }

    /** Checks that {@code fpdu} is a Terminate (untagged, opcode 7, QN 2, MSN 1, MO 0, its CRC) and decodes it. */
    Terminate decodeTerminate(byte[] fpdu) {
        int ulpdu = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        ByteBuffer b = ByteBuffer.wrap(fpdu);
        assertThat(b.get(2) & 0x80).as("untagged").isZero();
        assertThat(b.get(3) & 0x0F).as("opcode").isEqualTo(RdmapOpcode.TERMINATE.code());
        DdpUntaggedHeaderFlyweight ddp = new DdpUntaggedHeaderFlyweight().wrap(b, FpduFlyweight.ULPDU_OFFSET);
        assertThat(ddp.queueNumber()).as("QN").isEqualTo(2);
        assertThat(ddp.msn()).as("MSN").isEqualTo(1);
        assertThat(ddp.messageOffset()).as("MO").isZero();
        if (crc) {
            FpduFlyweight again = new FpduFlyweight().wrap(ByteBuffer.wrap(fpdu.clone()), 0);
            again.seal(true, new CRC32C());
            assertThat(new FpduFlyweight().wrap(b, 0).crcField()).as("CRC of the Terminate")
                .isEqualTo(again.crcField());
        }
        TerminateFlyweight t = new TerminateFlyweight().wrap(b, FpduFlyweight.ULPDU_OFFSET
            + DdpUntaggedHeaderFlyweight.LENGTH, ulpdu - DdpUntaggedHeaderFlyweight.LENGTH);
        return new Terminate(t.layer(), t.errorType(), t.errorCode(), t.flagD(), t.flagR(), fpdu);
    }

    /** Reads FPDUs until a Terminate arrives and returns it, leaving the connection open both ways. */
    byte[] readUntilTerminate() throws IOException {
        byte[] fpdu;
        do {
            fpdu = readFpdu();
        } while ((fpdu[3] & 0x0F) != RdmapOpcode.TERMINATE.code());
        return fpdu;
    }

    /** Reads one whole FPDU (length field, ULPDU, pad, CRC). */
    byte[] readFpdu() throws IOException {
        byte[] length = CmTestSupport.readExactly(socket, FpduFlyweight.LENGTH_FIELD_LENGTH);
        int ulpdu = (length[0] & 0xFF) << 8 | length[1] & 0xFF;
        return concat(length, CmTestSupport.readExactly(socket, FpduFlyweight.fpduLength(ulpdu) - length.length));
    }

    /** Half-closes and reads until jndk closes; returns what arrived. */
    byte[] closeAndDrain() throws IOException {
        socket.shutdownOutput();
        return CmTestSupport.readUntilClose(socket);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
