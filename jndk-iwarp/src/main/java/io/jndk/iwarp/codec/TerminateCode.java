package io.jndk.iwarp.codec;

/**
 * Every Terminate layer / error type / error code triple of RFC 5040 section 4.8, RFC 5041
 * section 7.2, RFC 5044 section 8 and RFC 6581 section 9 that IWARP.md section 3.8 uses.
 *
 * <p>The layer and error type constants are the 4-bit values of the Terminate control word
 * ({@link TerminateFlyweight}). {@link #copiesDdpHeader()} says whether the RFC 5040 Figure 10
 * rules (as siw applies them) attach the DDP segment length and the offending DDP header.
 */
public enum TerminateCode {
    /** RDMAP local catastrophic error; the code is unspecified, siw sends 0xFF (test vector TV6). */
    RDMAP_LOCAL_CATASTROPHIC(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_LOCAL_CATASTROPHIC, 0xFF, false),
    /** RDMAP remote protection: invalid STag. */
    RDMAP_INVALID_STAG(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x00, true),
    /** RDMAP remote protection: base or bounds violation. */
    RDMAP_BASE_BOUNDS_VIOLATION(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x01, true),
    /** RDMAP remote protection: access rights violation. */
    RDMAP_ACCESS_RIGHTS_VIOLATION(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x02, true),
    /** RDMAP remote protection: STag not associated with RDMAP stream. */
    RDMAP_STAG_NOT_ASSOCIATED(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x03, true),
    /** RDMAP remote protection: TO wrap. */
    RDMAP_TO_WRAP(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x04, true),
    /** RDMAP remote protection: STag cannot be invalidated (PD mismatch). */
    RDMAP_PROTECTION_STAG_NOT_INVALIDATED(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0x09, true),
    /** RDMAP remote protection: unspecified error. */
    RDMAP_PROTECTION_UNSPECIFIED(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_PROTECTION, 0xFF, true),
    /** RDMAP remote operation: invalid RDMAP version (siw attaches no header). */
    RDMAP_INVALID_VERSION(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0x05, false),
    /** RDMAP remote operation: unexpected opcode (siw attaches no header). */
    RDMAP_UNEXPECTED_OPCODE(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0x06, false),
    /** RDMAP remote operation: catastrophic error localized to the RDMAP stream (siw: inbound read queue overflow). */
    RDMAP_CATASTROPHIC_STREAM(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0x07, true),
    /** RDMAP remote operation: catastrophic error, global. */
    RDMAP_CATASTROPHIC_GLOBAL(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0x08, true),
    /** RDMAP remote operation: STag cannot be invalidated (unknown STag). */
    RDMAP_OPERATION_STAG_NOT_INVALIDATED(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0x09, true),
    /** RDMAP remote operation: unspecified error. */
    RDMAP_OPERATION_UNSPECIFIED(TerminateCode.LAYER_RDMAP, TerminateCode.ETYPE_RDMAP_REMOTE_OPERATION, 0xFF, true),

    /** DDP local catastrophic error. */
    DDP_LOCAL_CATASTROPHIC(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_LOCAL_CATASTROPHIC, 0x00, false),
    /** DDP tagged buffer: invalid STag. */
    DDP_TAGGED_INVALID_STAG(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_TAGGED, 0x00, true),
    /** DDP tagged buffer: base or bounds violation. */
    DDP_TAGGED_BASE_BOUNDS_VIOLATION(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_TAGGED, 0x01, true),
    /** DDP tagged buffer: STag not associated with DDP stream. */
    DDP_TAGGED_STAG_NOT_ASSOCIATED(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_TAGGED, 0x02, true),
    /** DDP tagged buffer: TO wrap. */
    DDP_TAGGED_TO_WRAP(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_TAGGED, 0x03, true),
    /** DDP tagged buffer: invalid DDP version (siw attaches no header). */
    DDP_TAGGED_INVALID_VERSION(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_TAGGED, 0x04, false),
    /** DDP untagged buffer: invalid QN. */
    DDP_UNTAGGED_INVALID_QN(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x01, true),
    /** DDP untagged buffer: invalid MSN, no buffer available (siw also uses it for "message too long"). */
    DDP_UNTAGGED_NO_BUFFER(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x02, true),
    /** DDP untagged buffer: invalid MSN, MSN range is not valid. */
    DDP_UNTAGGED_MSN_RANGE(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x03, true),
    /** DDP untagged buffer: invalid MO. */
    DDP_UNTAGGED_INVALID_MO(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x04, true),
    /** DDP untagged buffer: DDP message too long for available buffer. */
    DDP_UNTAGGED_MESSAGE_TOO_LONG(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x05, true),
    /** DDP untagged buffer: invalid DDP version (siw attaches no header). */
    DDP_UNTAGGED_INVALID_VERSION(TerminateCode.LAYER_DDP, TerminateCode.ETYPE_DDP_UNTAGGED, 0x06, false),

    /** LLP/MPA: TCP connection closed, terminated or lost. */
    LLP_CONNECTION_LOST(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x01, false),
    /** LLP/MPA: MPA CRC error. */
    LLP_CRC_ERROR(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x02, false),
    /** LLP/MPA: marker and ULPDU length field mismatch. */
    LLP_MARKER_MISMATCH(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x03, false),
    /** LLP/MPA: invalid MPA Request or Reply frame. */
    LLP_INVALID_MPA_FRAME(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x04, false),
    /** LLP/MPA: local catastrophic error (RFC 6581). */
    LLP_LOCAL_CATASTROPHIC(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x05, false),
    /** LLP/MPA: insufficient IRD resources (RFC 6581). */
    LLP_INSUFFICIENT_IRD(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x06, false),
    /** LLP/MPA: no matching RTR option (RFC 6581). */
    LLP_NO_MATCHING_RTR(TerminateCode.LAYER_LLP, TerminateCode.ETYPE_LLP_MPA, 0x07, false);

    /** Layer 0: RDMAP. */
    public static final int LAYER_RDMAP = 0;
    /** Layer 1: DDP. */
    public static final int LAYER_DDP = 1;
    /** Layer 2: LLP (MPA over TCP). */
    public static final int LAYER_LLP = 2;
    /** RDMAP error type 0: local catastrophic. */
    public static final int ETYPE_RDMAP_LOCAL_CATASTROPHIC = 0;
    /** RDMAP error type 1: remote protection. */
    public static final int ETYPE_RDMAP_REMOTE_PROTECTION = 1;
    /** RDMAP error type 2: remote operation. */
    public static final int ETYPE_RDMAP_REMOTE_OPERATION = 2;
    /** DDP error type 0: local catastrophic. */
    public static final int ETYPE_DDP_LOCAL_CATASTROPHIC = 0;
    /** DDP error type 1: tagged buffer error. */
    public static final int ETYPE_DDP_TAGGED = 1;
    /** DDP error type 2: untagged buffer error. */
    public static final int ETYPE_DDP_UNTAGGED = 2;
    /** LLP error type 0: MPA. */
    public static final int ETYPE_LLP_MPA = 0;

    private static final TerminateCode[] ALL = values();

    private final int layer;
    private final int errorType;
    private final int errorCode;
    private final boolean copiesDdpHeader;

    TerminateCode(int layer, int errorType, int errorCode, boolean copiesDdpHeader) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
        this.copiesDdpHeader = copiesDdpHeader;
    }

    /** @return the 4-bit layer */
    public int layer() {
        return layer;
    }

    /** @return the 4-bit error type (EType) */
    public int errorType() {
        return errorType;
    }

    /** @return the 8-bit error code */
    public int errorCode() {
        return errorCode;
    }

    /** @return whether the offending DDP header and DDP segment length are attached (M and D set) */
    public boolean copiesDdpHeader() {
        return copiesDdpHeader;
    }

    /**
     * @param layer a 4-bit layer
     * @param errorType a 4-bit error type
     * @return whether the pair is defined: RDMAP 0-2, DDP 0-2, LLP 0
     */
    public static boolean isValidLayerAndType(int layer, int errorType) {
        return switch (layer) {
            case LAYER_RDMAP, LAYER_DDP -> errorType >= 0 && errorType <= 2;
            case LAYER_LLP -> errorType == ETYPE_LLP_MPA;
            default -> false;
        };
    }

    /**
     * Looks a received triple up without throwing. RDMAP local catastrophic accepts any code.
     *
     * @param layer the layer
     * @param errorType the error type
     * @param errorCode the error code
     * @return the matching constant, or {@code null} if the triple is not defined
     */
    public static TerminateCode of(int layer, int errorType, int errorCode) {
        if (layer == LAYER_RDMAP && errorType == ETYPE_RDMAP_LOCAL_CATASTROPHIC) {
            return RDMAP_LOCAL_CATASTROPHIC;
        }
        for (TerminateCode code : ALL) {
            if (code.layer == layer && code.errorType == errorType && code.errorCode == errorCode) {
                return code;
            }
        }
        return null;
    }
}
