package io.jndk.tools;

import io.jndk.api.CreateCompletion;
import io.jndk.api.NdkClosable;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Drives NDK's asynchronous call shapes synchronously for the tools (inline or pending outcomes alike). */
final class Sync {
    private Sync() {}

    static final long TIMEOUT_MS = 10_000;

    interface CreateCall<T> {
        int call(CreateCompletion cc, Object ctx, Ref<T> out);
    }

    interface RequestCall {
        int call(RequestCompletion rc, Object ctx);
    }

    /** Thrown when an NDK call fails; carries the status. */
    static final class NdkException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;

        NdkException(String what, int status) {
            super(what + " failed: " + NtStatus.describe(status));
            this.status = status;
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T create(String what, CreateCall<T> call) {
        CompletableFuture<Object[]> f = new CompletableFuture<>();
        Ref<T> ref = new Ref<>();
        int s = call.call((c, st, o) -> f.complete(new Object[] {st, o}), null, ref);
        if (s == NtStatus.STATUS_PENDING) {
            Object[] r = get(f, what);
            s = (Integer) r[0];
            ref.set((T) r[1]);
        }
        if (s != NtStatus.STATUS_SUCCESS) {
            throw new NdkException(what, s);
        }
        return ref.get();
    }

    static CompletableFuture<Integer> start(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((c, st) -> f.complete(st), null);
        if (s != NtStatus.STATUS_PENDING) {
            f.complete(s);
        }
        return f;
    }

    static void request(String what, RequestCall call) {
        check(what, get(start(call), what));
    }

    static void check(String what, int status) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new NdkException(what, status);
        }
    }

    static void close(NdkClosable o) {
        if (o == null) {
            return;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (o.close(c -> f.complete(null), null) == NtStatus.STATUS_PENDING) {
            get(f, "close");
        }
    }

    static <T> T get(CompletableFuture<T> f, String what) {
        try {
            return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(what + ": no outcome within " + TIMEOUT_MS + " ms", e);
        }
    }
}
