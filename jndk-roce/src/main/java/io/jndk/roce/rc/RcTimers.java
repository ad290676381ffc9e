package io.jndk.roce.rc;

/**
 * The RC transport's timer values. The local ACK timeout is {@code 4.096 us * 2^t} for the 5-bit QP attribute
 * {@code t}, and {@code t = 0} disables the timer (IBTA vol. 1 section 9.7, the local ACK timeout). The RNR NAK timer is the 5-bit
 * code an RNR NAK's AETH carries, the minimum time the requester waits before it retries (IBTA table 45).
 */
public final class RcTimers {

    /** Returned by {@link #localAckTimeoutNanos(int)} for {@code t = 0}: no timeout. */
    public static final long INFINITE = -1;

    /** IBTA table 45, in microseconds: index = the RNR NAK timer code. */
    private static final int[] RNR_MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840, 5_120, 7_680,
        10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
    };

    private RcTimers() {
    }

    /**
     * @param exponent the local ACK timeout attribute, 0-31
     * @return {@code 4096 ns << exponent}, or {@link #INFINITE} for 0
     */
    public static long localAckTimeoutNanos(int exponent) {
        if (exponent < 0 || exponent > 31) {
            throw new IllegalArgumentException("local ACK timeout exponent " + exponent + " is not in 0..31");
        }
        return exponent == 0 ? INFINITE : 4096L << exponent;
    }

    /**
     * @param code an RNR NAK timer code, 0-31
     * @return the time it stands for, in nanoseconds (code 0 is the longest, 655.36 ms)
     */
    public static long rnrNakNanos(int code) {
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("RNR NAK timer code " + code + " is not in 0..31");
        }
        return RNR_MICROS[code] * 1_000L;
    }
}
