package io.jndk.bench;

import io.jndk.api.CreateCompletion;
import io.jndk.api.NdkClosable;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Drives NDK's asynchronous calls to their outcome for the benchmarks (inline or pending alike). */
public final class Calls {
    private Calls() {}

    /** How long any one setup or teardown call may take. */
    static final long TIMEOUT_MS = 30_000;

    /** A create-style call: completion, context, out reference. */
    public interface Create<T> {
        /** Issues the call. */
        int call(CreateCompletion cc, Object ctx, Ref<T> out);
    }

    /** A request-style call: completion and context. */
    public interface Request {
        /** Issues the call. */
        int call(RequestCompletion rc, Object ctx);
    }

    /** Runs a create call to its outcome; throws unless it succeeded. */
    @SuppressWarnings("unchecked")
    public static <T> T create(String what, Create<T> call) {
        CompletableFuture<Object[]> f = new CompletableFuture<>();
        Ref<T> ref = new Ref<>();
        int s = call.call((c, st, o) -> f.complete(new Object[] {st, o}), null, ref);
        if (s == NtStatus.STATUS_PENDING) {
            Object[] r = await(f, what);
            s = (Integer) r[0];
            ref.set((T) r[1]);
        }
        check(what, s);
        return ref.get();
    }

    /** Starts a request call; the future completes with its final status. */
    public static CompletableFuture<Integer> start(Request call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        int s = call.call((c, st) -> f.complete(st), null);
        if (s != NtStatus.STATUS_PENDING) {
            f.complete(s);
        }
        return f;
    }

    /** Runs a request call to its outcome; throws unless it succeeded. */
    public static void request(String what, Request call) {
        check(what, await(start(call), what));
    }

    /** Throws unless {@code status} is success. */
    public static void check(String what, int status) {
        if (status != NtStatus.STATUS_SUCCESS) {
            throw new IllegalStateException(what + " failed: " + NtStatus.describe(status));
        }
    }

    /** Closes {@code o} (if any) and waits for the close to finish. */
    public static void close(NdkClosable o) {
        if (o == null) {
            return;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (o.close(c -> f.complete(null), null) == NtStatus.STATUS_PENDING) {
            await(f, "close");
        }
    }

    /** The future's value, bounded by {@link #TIMEOUT_MS}. */
    public static <T> T await(CompletableFuture<T> f, String what) {
        try {
            return f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(what + ": no outcome within " + TIMEOUT_MS + " ms", e);
        }
    }
}
