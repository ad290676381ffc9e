package io.jndk.iwarp.cm;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Objects;

/**
 * How a connection setup ended: {@link Accepted}, {@link Rejected} or {@link Failed}. Only an
 * {@code Accepted} outcome owns an open channel; on every other outcome the socket is already closed.
 */
public sealed interface MpaOutcome permits MpaOutcome.Accepted, MpaOutcome.Rejected, MpaOutcome.Failed {

    /**
     * The connection is set up. The caller owns {@code channel} (blocking mode, TCP_NODELAY on) and
     * must close it. {@code surplus} holds octets read past the MPA Reply: they are the start of the
     * peer's FPDU stream (IWARP.md 1.1 rule 3) and must be parsed before anything read later.
     *
     * @param negotiated what was agreed
     * @param channel the connected channel
     * @param surplus FPDU octets already read, position 0, possibly empty
     * @param setup the MPA Request and Reply octets exchanged ({@link MpaSetupFrames#NONE} if not recorded)
     */
    record Accepted(MpaNegotiated negotiated, SocketChannel channel, ByteBuffer surplus, MpaSetupFrames setup)
        implements MpaOutcome {
        /** Checks arguments. */
        public Accepted {
            Objects.requireNonNull(negotiated, "negotiated");
            Objects.requireNonNull(channel, "channel");
            Objects.requireNonNull(surplus, "surplus");
            Objects.requireNonNull(setup, "setup");
        }

        /**
         * An outcome without recorded setup frames.
         *
         * @param negotiated what was agreed
         * @param channel the connected channel
         * @param surplus FPDU octets already read, position 0, possibly empty
         */
        public Accepted(MpaNegotiated negotiated, SocketChannel channel, ByteBuffer surplus) {
            this(negotiated, channel, surplus, MpaSetupFrames.NONE);
        }
    }

    /**
     * The responder answered with R = 1; the socket is closed.
     *
     * @param negotiated the Reply's contents ({@link MpaNegotiated#rejected()} is true)
     * @param crcPolicy the Reply's C differs from the Request's: a responder rejects so (siw with
     *                  {@code mpa_crc_strict}) when it refuses the CRC policy of the Request; a consumer's reject echoes C
     */
    record Rejected(MpaNegotiated negotiated, boolean crcPolicy) implements MpaOutcome {
        /** Checks arguments. */
        public Rejected {
            Objects.requireNonNull(negotiated, "negotiated");
        }

        /** A consumer's rejection (C echoed). */
        public Rejected(MpaNegotiated negotiated) {
            this(negotiated, false);
        }

        /** @return the responder's ULP private data (a copy) */
        public byte[] privateData() {
            return negotiated.peerPrivateData();
        }
    }

    /**
     * Setup failed; the socket is closed.
     *
     * @param reason the closed-set reason
     * @param detail a human-readable explanation for logs
     */
    record Failed(MpaFailure reason, String detail) implements MpaOutcome {
        /** Checks arguments. */
        public Failed {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }
}
