package io.jndk.provider;

import io.jndk.api.IntRef;
import io.jndk.api.NtStatus;

/** {@code NdkGetConnectionData}'s answer: the read limits, and the peer's private data copied into the consumer's buffer. */
final class PrivateData {
    private PrivateData() {}

    /**
     * Fills {@code ird}/{@code ord} (when given) and copies {@code data} into {@code buf}: {@code len} says how large
     * the buffer is on entry and how much private data there is on return; a short buffer is
     * {@code STATUS_BUFFER_TOO_SMALL} (with what fits copied), a missing {@code len} {@code STATUS_INVALID_PARAMETER}.
     */
    static int copyOut(byte[] data, int i, int o, IntRef ird, IntRef ord, byte[] buf, IntRef len) {
        if (ird != null) {
            ird.value = i;
        }
        if (ord != null) {
            ord.value = o;
        }
        if (len == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        long in = Integer.toUnsignedLong(len.value); // *pPrivateDataLength is a ULONG
        len.value = data.length;
        if (buf == null && in == 0) {
            return NtStatus.STATUS_SUCCESS;
        }
        if (buf != null) {
            System.arraycopy(data, 0, buf, 0, (int) Math.min(Math.min(in, data.length), buf.length));
        }
        return in >= data.length ? NtStatus.STATUS_SUCCESS : NtStatus.STATUS_BUFFER_TOO_SMALL;
    }
}
