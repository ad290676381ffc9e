package io.jndk.tools.kit;

import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;

/** Turning statuses and completions into exceptions with the line to print (public API only). */
public final class Checks {
    private Checks() {}

    /** " (peer Terminate layer L, type T, code 0xCC)" for a completion's provider error code, or "" when it is 0. */
    public static String terminate(int providerErrorCode) {
        return providerErrorCode == 0 ? "" : String.format(" (peer Terminate layer %d, type %d, code 0x%02X)",
                providerErrorCode >>> 12 & 0xF, providerErrorCode >>> 8 & 0xF, providerErrorCode & 0xFF);
    }

    /** Throws unless the completion {@code r} succeeded (the peer's Terminate, if any, in the message). */
    public static void check(NdkResultEx r, String what) {
        if (r.status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what + terminate(r.providerErrorCode), r.status);
        }
    }

    /** Throws unless {@code status} is success. */
    public static void check(int status, String what) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new Sync.NdkException(what, status);
        }
    }
}
