package io.jndk.provider.spi;

/**
 * iWARP Terminate layer/type/code values (RFC 5040 section 7, RFC 5041 section 7, RFC 5044), packed as
 * {@code layer << 12 | etype << 8 | code}: the form jndk reports in {@code ProviderErrorCode}.
 */
public final class Term {
    private Term() {}

    /** Packs a Terminate control triple. */
    public static int of(int layer, int etype, int code) {
        return (layer & 0xF) << 12 | (etype & 0xF) << 8 | (code & 0xFF);
    }

    public static int layer(int term) {
        return term >>> 12 & 0xF;
    }

    public static int etype(int term) {
        return term >>> 8 & 0xF;
    }

    public static int code(int term) {
        return term & 0xFF;
    }

    public static final int LAYER_RDMAP = 0, LAYER_DDP = 1, LAYER_LLP = 2;

    public static final int RDMAP_CATASTROPHIC = of(0, 0, 0xFF);
    public static final int RDMAP_INVALID_STAG = of(0, 1, 0x00);
    public static final int RDMAP_BASE_BOUNDS = of(0, 1, 0x01);
    public static final int RDMAP_ACCESS_RIGHTS = of(0, 1, 0x02);
    public static final int RDMAP_STAG_NOT_ASSOCIATED = of(0, 1, 0x03);
    public static final int RDMAP_TO_WRAP = of(0, 1, 0x04);
    public static final int RDMAP_INVALID_VERSION = of(0, 2, 0x05);
    public static final int RDMAP_UNEXPECTED_OPCODE = of(0, 2, 0x06);
    public static final int RDMAP_CATASTROPHIC_STREAM = of(0, 2, 0x07);
    public static final int RDMAP_CATASTROPHIC_GLOBAL = of(0, 2, 0x08);
    public static final int RDMAP_CANNOT_INVALIDATE = of(0, 1, 0x09);
    public static final int RDMAP_UNSPECIFIED = of(0, 2, 0xFF);

    public static final int DDP_CATASTROPHIC = of(1, 0, 0x00);
    public static final int DDP_TAGGED_INVALID_STAG = of(1, 1, 0x00);
    public static final int DDP_TAGGED_BASE_BOUNDS = of(1, 1, 0x01);
    public static final int DDP_TAGGED_NOT_ASSOCIATED = of(1, 1, 0x02);
    public static final int DDP_TAGGED_TO_WRAP = of(1, 1, 0x03);
    public static final int DDP_TAGGED_INVALID_VERSION = of(1, 1, 0x04);
    public static final int DDP_UNTAGGED_INVALID_QN = of(1, 2, 0x01);
    public static final int DDP_UNTAGGED_NO_BUFFER = of(1, 2, 0x02);
    public static final int DDP_UNTAGGED_INVALID_MSN = of(1, 2, 0x03);
    public static final int DDP_UNTAGGED_INVALID_MO = of(1, 2, 0x04);
    public static final int DDP_UNTAGGED_TOO_LONG = of(1, 2, 0x05);
    public static final int DDP_UNTAGGED_INVALID_VERSION = of(1, 2, 0x06);

    public static final int LLP_CONNECTION_LOST = of(2, 0, 0x01);
    public static final int LLP_CRC_ERROR = of(2, 0, 0x02);
    public static final int LLP_INVALID_MPA_FRAME = of(2, 0, 0x04);
    public static final int LLP_LOCAL_CATASTROPHIC = of(2, 0, 0x05);
    public static final int LLP_INSUFFICIENT_IRD = of(2, 0, 0x06);
    public static final int LLP_NO_MATCHING_RTR = of(2, 0, 0x07);

    /** Readable form, e.g. {@code DDP/1/0x00}. */
    public static String describe(int term) {
        String l = switch (layer(term)) {
            case 0 -> "RDMAP";
            case 1 -> "DDP";
            case 2 -> "LLP";
            default -> "layer" + layer(term);
        };
        return String.format("%s/%d/0x%02X", l, etype(term), code(term));
    }
}
