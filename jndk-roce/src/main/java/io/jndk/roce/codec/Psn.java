package io.jndk.roce.codec;

/**
 * 24-bit packet sequence number arithmetic (IBTA vol. 1 section 9.7.1): PSNs wrap from {@code 0xFFFFFF} to 0, and
 * two PSNs are ordered by the shorter way round the circle, that is within half the PSN space (2^23) of each other.
 * Every method takes and returns PSNs as ints in 0..0xFFFFFF; inputs are reduced to their low 24 bits first.
 */
public final class Psn {

    /** Mask of the 24 PSN bits. */
    public static final int MASK = 0xFFFFFF;
    /** Half the PSN space: the largest distance at which two PSNs are still ordered. */
    public static final int HALF_WINDOW = 1 << 23;

    private Psn() {
    }

    /**
     * @param psn a PSN
     * @param n how far to advance (may be negative)
     * @return {@code psn + n} modulo 2^24
     */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /**
     * @param psn a PSN
     * @return the next PSN
     */
    public static int next(int psn) {
        return add(psn, 1);
    }

    /**
     * @param from a PSN
     * @param to another PSN
     * @return how many steps forward lead from {@code from} to {@code to}, 0..2^24-1
     */
    public static int distance(int from, int to) {
        return (to - from) & MASK;
    }

    /**
     * The signed difference {@code a - b} taken the short way round: negative when {@code a} is before {@code b},
     * in {@code -2^23 .. 2^23-1} (a PSN exactly half the space ahead counts as behind).
     *
     * @param a a PSN
     * @param b another PSN
     * @return the signed difference
     */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /**
     * @param a a PSN
     * @param b another PSN
     * @return negative, zero or positive as {@code a} is before, equal to or after {@code b}
     */
    public static int compare(int a, int b) {
        return Integer.signum(diff(a, b));
    }

    /**
     * @param a a PSN
     * @param b another PSN
     * @return true when {@code a} comes before {@code b}
     */
    public static boolean before(int a, int b) {
        return diff(a, b) < 0;
    }

    /**
     * @param a a PSN
     * @param b another PSN
     * @return true when {@code a} comes after {@code b}
     */
    public static boolean after(int a, int b) {
        return diff(a, b) > 0;
    }

    /**
     * @param psn a PSN
     * @param first the first PSN of a window
     * @param count the window's size, 0..2^23
     * @return true when {@code psn} is one of the {@code count} PSNs from {@code first} on
     */
    public static boolean inWindow(int psn, int first, int count) {
        return distance(first, psn) < count;
    }

    /**
     * @param value any int
     * @return true when it is a valid PSN (fits 24 bits)
     */
    public static boolean isValid(int value) {
        return (value & ~MASK) == 0;
    }
}
