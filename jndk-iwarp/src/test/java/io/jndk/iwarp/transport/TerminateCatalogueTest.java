package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.provider.spi.Term;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The two Terminate catalogues stay in step: {@link Term} (packed ints, the {@code QpPort} contract the provider
 * answers in) and {@link TerminateCode} (the codec's enum, with the RFC 5040 Figure 10 attachment rule). They stay
 * two types because the codec must not import the provider ({@code CodecImportCheckTest}); the transport is where
 * they meet ({@link Terminates}), so this test lives here.
 */
class TerminateCatalogueTest {

    /**
     * Codes the codec names that no one on this side ever sends, so the provider's catalogue leaves them out. A
     * received one is still recognised by the decoder and reported to the provider as a packed triple
     * ({@code Term.of}); it just has no constant there.
     */
    private static final Map<TerminateCode, String> CODEC_ONLY = Map.of(
        TerminateCode.RDMAP_PROTECTION_UNSPECIFIED,
        "no access check ends in an unspecified protection error: TokenTable's outcomes map to named codes",
        TerminateCode.RDMAP_OPERATION_STAG_NOT_INVALIDATED,
        "an STag that cannot be invalidated is answered as a protection error (Term.RDMAP_CANNOT_INVALIDATE, "
            + "EType 1), as siw does; the remote-operation twin (EType 2) is only ever received",
        TerminateCode.LLP_MARKER_MISMATCH,
        "jndk never negotiates MPA markers (siw does not support them), so no marker can mismatch");

    @Test
    void everyTermConstantHasTheCodecCodeWithTheSameTriple() throws IllegalAccessException {
        List<String> missing = new ArrayList<>();
        Set<TerminateCode> matched = EnumSet.noneOf(TerminateCode.class);
        int constants = 0;
        for (Field f : Term.class.getFields()) {
            if (!isCodeConstant(f)) {
                continue;
            }
            constants++;
            int term = f.getInt(null);
            TerminateCode code = TerminateCode.of(Term.layer(term), Term.etype(term), Term.code(term));
            if (code == null || code.errorCode() != Term.code(term)) {
                missing.add(f.getName() + " " + Term.describe(term));
            } else {
                matched.add(code);
                assertThat(Terminates.term(code)).as(f.getName()).isEqualTo(term);
            }
        }
        assertThat(constants).isGreaterThan(25);
        assertThat(missing).as("Term constants without a TerminateCode").isEmpty();
        assertThat(matched).doesNotContainAnyElementsOf(CODEC_ONLY.keySet());
    }

    @Test
    void everyCodecCodeHasATermConstantOrASaidReason() throws IllegalAccessException {
        Set<Integer> terms = new java.util.HashSet<>();
        for (Field f : Term.class.getFields()) {
            if (isCodeConstant(f)) {
                terms.add(f.getInt(null));
            }
        }
        List<String> missing = new ArrayList<>();
        for (TerminateCode code : TerminateCode.values()) {
            int packed = Term.of(code.layer(), code.errorType(), code.errorCode());
            boolean inProvider = terms.contains(packed);
            if (CODEC_ONLY.containsKey(code)) {
                assertThat(inProvider).as(code + " is listed as codec-only but Term has it now").isFalse();
            } else if (!inProvider) {
                missing.add(code + " " + Term.describe(packed));
            }
        }
        assertThat(missing).as("TerminateCodes without a Term constant (add one, or list it in CODEC_ONLY)")
            .isEmpty();
        assertThat(CODEC_ONLY.values()).allSatisfy(reason -> assertThat(reason).isNotBlank());
    }

    /** The public static final int code constants of {@link Term}; the {@code LAYER_*} values are not codes. */
    private static boolean isCodeConstant(Field f) {
        int m = f.getModifiers();
        return Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == int.class
            && !f.getName().startsWith("LAYER_");
    }
}
