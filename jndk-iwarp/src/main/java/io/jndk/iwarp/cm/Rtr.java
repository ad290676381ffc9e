package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.CrcVerdict;
import io.jndk.iwarp.codec.FpduDecoder;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.FpduError;
import io.jndk.iwarp.codec.FpduFlyweight;
import io.jndk.iwarp.codec.FpduHeaderView;
import io.jndk.iwarp.codec.FpduListener;
import io.jndk.iwarp.codec.RdmapOpcode;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;

/**
 * The RFC 6581 ready-to-receive frame, in siw's exact form (IWARP.md 1.4, 5.3): a zero-length RDMA
 * Write to STag 1, TO 0; a zero-length RDMA Read Request (QN 1, MSN 1, sink STag 0, sink TO 0, size
 * 0, source STag 1, source TO 0); or a zero-length Send (QN 0, MSN 1). The Read RTR is answered by
 * a zero-length Read Response and the Send RTR consumes MSN 1 of its queue: the queue pair that takes
 * over the connection must account for that.
 */
public final class Rtr {

    /** STag of the Write RTR and source STag of the Read RTR; never 0 (Chelsio rejects STag 0). */
    public static final int STAG = 1;
    /** Largest RTR frame (the Read Request), including pad and CRC. */
    public static final int MAX_LENGTH = FpduFlyweight.fpduLength(RdmapOpcode.RDMA_READ_REQUEST.headerLength());

    /** What {@link #await} saw. */
    public enum Check {
        /** The agreed RTR arrived (and its CRC, if negotiated, is good). */
        RECEIVED,
        /** The first FPDU is not the agreed RTR, or is not a valid FPDU: send a Terminate and close. */
        UNEXPECTED_FRAME,
        /** The RTR arrived with a bad CRC: Terminate {@code LLP_CRC_ERROR}. */
        CRC_MISMATCH,
        /** The peer closed or reset the connection. */
        CLOSED,
        /** Nothing complete arrived in time. */
        TIMEOUT,
        /** No RTR was negotiated for this side to wait for. */
        NOT_EXPECTED
    }

    private Rtr() {
    }

    /**
     * Writes the RTR frame of {@code type} with {@code encoder} (whose CRC setting applies).
     *
     * @param encoder the encoder
     * @param type the RTR type
     * @param dst destination, with at least {@link #MAX_LENGTH} octets from {@code index}
     * @param index absolute index of the first octet
     * @return the frame length (20, 52 or 24)
     */
    public static int encode(FpduEncoder encoder, RtrType type, ByteBuffer dst, int index) {
        return switch (type) {
            case WRITE -> encoder.tagged(dst, index, RdmapOpcode.RDMA_WRITE, true, STAG, 0L, null, 0, 0);
            case READ -> encoder.readRequest(dst, index, 1, 0, 0L, 0, STAG, 0L);
            case SEND -> encoder.untagged(dst, index, RdmapOpcode.SEND, true, 0,
                RdmapOpcode.SEND.queueNumber(), 1, 0, null, 0, 0);
        };
    }

    /**
     * @param type the RTR type
     * @param crc whether CRC was negotiated
     * @return a fresh buffer holding exactly the frame
     */
    public static ByteBuffer frame(RtrType type, boolean crc) {
        ByteBuffer b = ByteBuffer.allocate(MAX_LENGTH);
        int n = encode(new FpduEncoder(crc), type, b, 0);
        return b.limit(n);
    }

    /**
     * Sends the agreed RTR if this side must ({@link MpaNegotiated#mustSendRtr()}); otherwise does nothing.
     *
     * @param channel the connection (blocking mode)
     * @param negotiated the setup result
     * @return whether a frame was sent
     * @throws IOException if writing fails
     */
    public static boolean send(SocketChannel channel, MpaNegotiated negotiated) throws IOException {
        if (!negotiated.mustSendRtr()) {
            return false;
        }
        MpaIo.writeFully(channel, frame(negotiated.rtr().orElseThrow(), negotiated.crc()));
        return true;
    }

    /**
     * @param header a decoded FPDU header
     * @param type the RTR type agreed
     * @return whether the FPDU is that RTR; STags and TOs are not checked (siw does not either)
     */
    public static boolean matches(FpduHeaderView header, RtrType type) {
        Objects.requireNonNull(type, "type");
        return switch (type) {
            case WRITE -> header.opcode() == RdmapOpcode.RDMA_WRITE && header.last() && header.payloadLength() == 0;
            case READ -> header.opcode() == RdmapOpcode.RDMA_READ_REQUEST && header.readRequest().readSize() == 0;
            case SEND -> header.opcode() == RdmapOpcode.SEND && header.last() && header.payloadLength() == 0
                && header.messageOffset() == 0;
        };
    }

    /**
     * Responder side: reads exactly one FPDU (nothing beyond it) and checks that it is the agreed RTR.
     *
     * @param channel the connection (blocking mode)
     * @param negotiated the setup result
     * @param timeout how long to wait
     * @return the verdict; the channel stays open whatever it is
     */
    public static Check await(SocketChannel channel, MpaNegotiated negotiated, Duration timeout) {
        if (!negotiated.expectsRtr()) {
            return Check.NOT_EXPECTED;
        }
        RtrType type = negotiated.rtr().orElseThrow();
        long deadline = MpaIo.deadline(timeout);
        ByteBuffer in = ByteBuffer.allocate(MAX_LENGTH);
        try {
            in.limit(FpduFlyweight.LENGTH_FIELD_LENGTH);
            MpaIo.readAtLeast(channel, in, FpduFlyweight.LENGTH_FIELD_LENGTH, deadline);
            int ulpdu = in.getShort(0) & 0xFFFF;
            int length = FpduFlyweight.fpduLength(ulpdu);
            if (length > MAX_LENGTH) {
                return Check.UNEXPECTED_FRAME;
            }
            in.limit(length);
            MpaIo.readAtLeast(channel, in, length, deadline);
        } catch (EOFException e) {
            return Check.CLOSED;
        } catch (SocketTimeoutException e) {
            return Check.TIMEOUT;
        } catch (IOException e) {
            return Check.CLOSED;
        }
        boolean[] match = new boolean[1];
        CrcVerdict[] verdict = new CrcVerdict[1];
        FpduDecoder decoder = new FpduDecoder(new FpduListener() {
            @Override
            public void onHeader(FpduHeaderView header) {
                match[0] = matches(header, type);
            }

            @Override
            public void onPayload(ByteBuffer buffer, int index, int length) {
                // an RTR has no payload; a frame with payload fails the match already
            }

            @Override
            public void onFrameEnd(FpduHeaderView header, CrcVerdict v) {
                verdict[0] = v;
            }
        }, negotiated.crc());
        in.flip();
        FpduError error = decoder.feed(in);
        if (error == FpduError.CRC_MISMATCH) {
            return Check.CRC_MISMATCH;
        }
        if (error != FpduError.NONE || verdict[0] == null || !match[0]) {
            return Check.UNEXPECTED_FRAME;
        }
        return Check.RECEIVED;
    }
}
