package io.jndk.provider.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One connection's data-path counters. Each counter has a single writer at a time (FPDUs out: whoever owns the
 * connection's write side, the transmit thread or, in polling mode, a posting thread that took that ownership
 * through its atomic hand-off; FPDUs in and CRC errors: whoever owns the receive side, the receive thread or, in
 * polling mode, a polling consumer that took it the same way), so an increment is a plain read and an
 * opaque write: no atomic
 * instruction and no shared cache line between connections. The adapter sums the live connections into its
 * snapshot and folds a connection's final values in once the connection is {@link #retire() retired}.
 */
public final class WireCounters {
    private static final VarHandle FPDUS_OUT, FPDUS_OUT_INLINE, FPDUS_IN, FPDUS_IN_POLLED, BYTES_IN_DIRECT, CRC_ERRORS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            FPDUS_OUT = l.findVarHandle(WireCounters.class, "fpdusOut", long.class);
            FPDUS_OUT_INLINE = l.findVarHandle(WireCounters.class, "fpdusOutInline", long.class);
            FPDUS_IN = l.findVarHandle(WireCounters.class, "fpdusIn", long.class);
            FPDUS_IN_POLLED = l.findVarHandle(WireCounters.class, "fpdusInPolled", long.class);
            BYTES_IN_DIRECT = l.findVarHandle(WireCounters.class, "bytesInDirect", long.class);
            CRC_ERRORS = l.findVarHandle(WireCounters.class, "crcErrors", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long fpdusOut;
    private long fpdusOutInline;
    private long fpdusIn;
    private long fpdusInPolled;
    private long bytesInDirect;
    private long crcErrors;
    private volatile boolean retired;

    /** A connection's counters, all zero: a transport makes one per connection. */
    public WireCounters() {}

    /** Transmit thread: one FPDU (a ready-to-receive frame and a Terminate included) went out. */
    public void fpduOut() {
        FPDUS_OUT.setOpaque(this, fpdusOut + 1);
    }

    /** Transmit side: that FPDU was sent by a consumer's thread (counted in {@link #fpduOut()} too). */
    public void fpduOutInline() {
        FPDUS_OUT_INLINE.setOpaque(this, fpdusOutInline + 1);
    }

    /** Receive side: one FPDU header was decoded. */
    public void fpduIn() {
        FPDUS_IN.setOpaque(this, fpdusIn + 1);
    }

    /** Receive side: that FPDU was decoded on a polling consumer's thread (counted in {@link #fpduIn()} too). */
    public void fpduInPolled() {
        FPDUS_IN_POLLED.setOpaque(this, fpdusInPolled + 1);
    }

    /** Receive side: {@code n} payload octets were read from the socket straight into their target. */
    public void bytesInDirect(long n) {
        BYTES_IN_DIRECT.setOpaque(this, bytesInDirect + n);
    }

    /** Receive thread: an FPDU failed its CRC check. */
    public void crcError() {
        CRC_ERRORS.setOpaque(this, crcErrors + 1);
    }

    /** Called once after the last increment (both threads ended): the values are final. */
    public void retire() {
        retired = true;
    }

    /** Whether the values are final (read before the values). */
    public boolean retired() {
        return retired;
    }

    /** FPDUs sent so far. */
    public long fpdusOut() {
        return (long) FPDUS_OUT.getOpaque(this);
    }

    /** FPDUs sent by consumers' threads so far. */
    public long fpdusOutInline() {
        return (long) FPDUS_OUT_INLINE.getOpaque(this);
    }

    /** FPDUs received so far. */
    public long fpdusIn() {
        return (long) FPDUS_IN.getOpaque(this);
    }

    /** FPDUs received on polling consumers' threads so far. */
    public long fpdusInPolled() {
        return (long) FPDUS_IN_POLLED.getOpaque(this);
    }

    /** Payload octets read straight into their targets so far. */
    public long bytesInDirect() {
        return (long) BYTES_IN_DIRECT.getOpaque(this);
    }

    /** CRC errors so far. */
    public long crcErrors() {
        return (long) CRC_ERRORS.getOpaque(this);
    }
}
