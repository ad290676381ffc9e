package io.jndk.iwarp.codec;

/**
 * How the first three octets of a received Terminate control word were laid out.
 *
 * <p>RFC 5040 puts Layer in the high nibble of octet 0, EType in the low nibble, and the M/D/R flags
 * in the top bits of octet 2. Linux siw (a C bit-field on little-endian hosts) swaps the nibbles of
 * octet 0 and puts M/D/R in the lowest three bits of octet 2 (IWARP.md 5.4 items 15, 19, 20).
 */
public enum TerminateLayout {
    /** RFC 5040 section 4.8: {@code Layer<<28 | EType<<24 | Code<<16 | M 0x8000 | D 0x4000 | R 0x2000}. */
    RFC_5040,
    /** siw on little-endian hosts: {@code EType<<28 | Layer<<24 | Code<<16 | M 0x0100 | D 0x0200 | R 0x0400}. */
    SIW_SWAPPED
}
