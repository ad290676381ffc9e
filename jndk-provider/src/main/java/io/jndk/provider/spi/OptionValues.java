package io.jndk.provider.spi;

import java.util.Map;

/**
 * Numbers in adapter options, read one way by the provider and every transport: a whole number in decimal or, with
 * {@code 0x}, in hexadecimal (so {@code 0xFFFFFFFF}, a {@code ULONG}'s largest value, is 4294967295), within the
 * range the option allows. Anything else is refused with an {@link IllegalArgumentException} that names the option,
 * the value and the range, when the adapter opens.
 */
public final class OptionValues {
    private OptionValues() {}

    /**
     * @return the value of option {@code key}, or {@code def} when it is not set
     * @throws IllegalArgumentException if it is set and is not a whole number from {@code min} to {@code max}
     */
    public static long number(Map<String, String> options, String key, long def, long min, long max) {
        String v = options == null ? null : options.get(key);
        return v == null ? def : parse(key, v, min, max);
    }

    /**
     * A limit (a count of objects): 0 to 4294967295 ({@code 0xFFFFFFFF}); a limit above {@link Integer#MAX_VALUE}
     * is no limit at all and reads as {@link Integer#MAX_VALUE}.
     *
     * @return the limit, or {@code def} when it is not set
     * @throws IllegalArgumentException if it is set and is not a whole number in that range
     */
    public static int limit(Map<String, String> options, String key, int def) {
        return (int) Math.min(Integer.MAX_VALUE, number(options, key, def, 0, 0xFFFF_FFFFL));
    }

    /**
     * @return {@code value} read as a whole number from {@code min} to {@code max}
     * @throws IllegalArgumentException naming {@code key}, {@code value} and the range otherwise
     */
    public static long parse(String key, String value, long min, long max) {
        String s = value.trim();
        try {
            long n;
            if (s.startsWith("0x") || s.startsWith("0X")) {
                n = Long.parseUnsignedLong(s.substring(2), 16);
                if (n < 0) {
                    throw new NumberFormatException();
                }
            } else {
                n = Long.parseLong(s);
            }
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("adapter option " + key + "=" + value + ": not a whole number from " + min
                + " to " + max + " (decimal, or hexadecimal with 0x)");
    }
}
