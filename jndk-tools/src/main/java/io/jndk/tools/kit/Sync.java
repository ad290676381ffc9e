package io.jndk.tools.kit;

import io.jndk.api.CreateCompletion;
import io.jndk.api.NdkClosable;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Drives NDK's asynchronous call shapes synchronously for the tools (inline or pending outcomes alike). */
public final class Sync {
    private Sync() {}

    /** How long a synchronous call waits for its outcome. */
    public static final long TIMEOUT_MS = 10_000;

    /** A create-style call. */
    public interface CreateCall<T> {
        int call(CreateCompletion cc, Object ctx, Ref<T> out);
    }

    /** A request-style call. */
    public interface RequestCall {
        int call(RequestCompletion rc, Object ctx);
    }

    /** Thrown when an NDK call fails; carries the status. */
    public static final class NdkException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** The NTSTATUS. */
        public final int status;

        /** {@code what} failed with {@code status}. */
        public NdkException(String what, int status) {
            super(what + " failed: " + NtStatus.describe(status));
            this.status = status;
        }
    }

    /** Runs a create-style call to its outcome. */
    @SuppressWarnings("unchecked")
    public static <T> T create(String what, CreateCall<T> call) {
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

    /** Starts a request-style call; the future completes with its status. */
    public static CompletableFuture<Integer> start(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((c, st) -> f.complete(st), null);
        if (s != NtStatus.STATUS_PENDING) {
            f.complete(s);
        }
        return f;
    }

    /** Runs a request-style call to a successful outcome. */
    public static void request(String what, RequestCall call) {
        check(what, get(start(call), what));
    }

    /** Throws unless {@code status} is success. */
    public static void check(String what, int status) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new NdkException(what, status);
        }
    }

    /** Closes {@code o} (null is fine) and waits for it. */
    public static void close(NdkClosable o) {
        if (o == null) {
            return;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (o.close(c -> f.complete(null), null) == NtStatus.STATUS_PENDING) {
            get(f, "close");
        }
    }

    /** Waits up to {@link #TIMEOUT_MS} for {@code f}. */
    public static <T> T get(CompletableFuture<T> f, String what) {
        try {
            return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(what + ": no outcome within " + TIMEOUT_MS + " ms", e);
        }
    }
}
