package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Numeric adapter options are checked when the adapter opens: a limit or an NDK_ADAPTER_INFO ULONG field takes 0 to
 * 0xFFFFFFFF (decimal or hexadecimal; it used to be read with Integer.decode, so 0xFFFFFFFF threw a
 * NumberFormatException at the first CreateQp), and a value out of range or not a number fails the open with a
 * message that names the option and what it takes.
 */
class AdapterOptionsTest {
    static NdkAdapter open(Map<String, String> options) {
        Ref<NdkAdapter> a = new Ref<>();
        int s = new SoftProviderFactory().openAdapter(
                NdkOpenParameters.of("loopback", InetAddress.getLoopbackAddress()).withOptions(options), a);
        assertThat(s).isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        return a.get();
    }

    @Test
    void theLargestUlongIsALimitAndAnAdapterInfoValue() {
        try (NdkAdapter a = open(Map.of("limit.qp", "0xFFFFFFFF", "limit.tokens", "4294967295", "maxCqDepth",
                "0xFFFFFFFF", "maxRegistrationSize", "0x7FFFFFFFFFFFFFFF"))) {
            assertThat(a.info().maxCqDepth()).as("a ULONG of 0xFFFFFFFF").isEqualTo(-1);
            assertThat(a.info().maxRegistrationSize()).isEqualTo(Long.MAX_VALUE);
            assertThat(((SoftAdapter) a).limit("limit.qp", 1)).isEqualTo(Integer.MAX_VALUE);
        }
    }

    @Test
    void aBadNumberFailsTheOpenAndSaysWhatTheOptionTakes() {
        assertThatThrownBy(() -> open(Map.of("limit.qp", "0x100000000"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("adapter option limit.qp=0x100000000: not a whole number from 0 to 4294967295"
                        + " (decimal, or hexadecimal with 0x)");
        assertThatThrownBy(() -> open(Map.of("connect.timeout.ms", "soon"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("adapter option connect.timeout.ms=soon: not a whole number from 0 to");
        assertThatThrownBy(() -> open(Map.of("maxSrqDepth", "-1"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("adapter option maxSrqDepth=-1: not a whole number from 0 to 4294967295");
        assertThatThrownBy(() -> open(Map.of("limit.registered.bytes", "1e9"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("adapter option limit.registered.bytes=1e9: not a whole number from 0 to "
                        + Long.MAX_VALUE);
    }
}
