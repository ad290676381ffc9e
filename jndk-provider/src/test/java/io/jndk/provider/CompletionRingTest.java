package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkResult;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import org.junit.jupiter.api.Test;

/** The CQ's entry ring alone: order, capacity, resizing, and what an entry carries. */
class CompletionRingTest {
    private static void push(CompletionRing r, int i) {
        assertThat(r.push(NtStatus.STATUS_SUCCESS, i, "qp", "r" + i, 1, 0, 0)).isTrue();
    }

    private static NdkResultEx[] results(int n) {
        NdkResultEx[] out = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            out[i] = new NdkResultEx();
        }
        return out;
    }

    @Test
    void entriesComeOutInOrderAcrossTheWrap() {
        CompletionRing r = new CompletionRing(3);
        NdkResultEx[] out = results(3);
        for (int round = 0; round < 5; round++) {
            push(r, 2 * round);
            push(r, 2 * round + 1);
            assertThat(r.take(out, 3)).isEqualTo(2);
            assertThat(out[0].requestContext).isEqualTo("r" + 2 * round);
            assertThat(out[1].requestContext).isEqualTo("r" + (2 * round + 1));
        }
        assertThat(r.count()).isZero();
    }

    @Test
    void aFullRingRefusesAnEntry() {
        CompletionRing r = new CompletionRing(2);
        push(r, 0);
        push(r, 1);
        assertThat(r.push(NtStatus.STATUS_SUCCESS, 2, "qp", "r2", 1, 0, 0)).isFalse();
        assertThat(r.count()).isEqualTo(2);
    }

    @Test
    void takeIsBoundedByTheRequestAndTheArray() {
        CompletionRing r = new CompletionRing(8);
        for (int i = 0; i < 5; i++) {
            push(r, i);
        }
        assertThat(r.take(results(2), 4)).isEqualTo(2);
        assertThat(r.take(results(8), 1)).isEqualTo(1);
        assertThat(r.count()).isEqualTo(2);
    }

    @Test
    void resizeKeepsTheEntriesInOrderAndRefusesADepthBelowThem() {
        CompletionRing r = new CompletionRing(3);
        push(r, 0);
        push(r, 1);
        r.take(results(1), 1);
        push(r, 2);
        push(r, 3); // wrapped
        assertThat(r.resize(2)).isFalse();
        assertThat(r.depth()).isEqualTo(3);
        assertThat(r.resize(5)).isTrue();
        push(r, 4);
        push(r, 5);
        NdkResultEx[] out = results(5);
        assertThat(r.take(out, 5)).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            assertThat(out[i].requestContext).isEqualTo("r" + (i + 1));
        }
    }

    @Test
    void anEntryCarriesItsFieldsAndASuccessHasNoProviderError() {
        CompletionRing r = new CompletionRing(2);
        r.push(NtStatus.STATUS_SUCCESS, 10, "q", "ok", 3, 0x1234, 77);
        r.push(NtStatus.STATUS_REMOTE_RESOURCES, 0, "q", "bad", 2, 0x1100, 0);
        NdkResultEx[] out = results(2);
        r.take(out, 2);
        assertThat(out[0].bytesTransferred).isEqualTo(10);
        assertThat(out[0].type).isEqualTo(3);
        assertThat(out[0].providerErrorCode).isZero();
        assertThat(out[0].typeSpecificCompletionOutput).isEqualTo(77L);
        assertThat(out[1].status).isEqualTo(NtStatus.STATUS_REMOTE_RESOURCES);
        assertThat(out[1].providerErrorCode).isEqualTo(0x1100);
        NdkResult[] plain = {new NdkResult()};
        r.push(NtStatus.STATUS_SUCCESS, 1, "q", "plain", 1, 0, 0);
        assertThat(r.take(plain, 1)).isEqualTo(1);
        assertThat(plain[0].requestContext).isEqualTo("plain");
    }
}
