package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.CreateCompletion;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Helpers that drive the three asynchronous call shapes and wait for outcomes with deadlines (never sleeps). */
public final class Kit {
    private Kit() {}

    /** The default deadline for anything a test waits for. */
    public static final Duration WAIT = Duration.ofSeconds(10);

    /**
     * {@code a}'s device counters as its engine answered them: a snapshot the engine did not answer within its second
     * (a loaded machine) holds the device's own counters only, without the RC ones, and is asked again until
     * {@link #WAIT}. Empty where the transport has none.
     */
    public static java.util.Map<String, Long> deviceCounters(io.jndk.api.NdkAdapter a) {
        long end = System.nanoTime() + WAIT.toNanos();
        java.util.Map<String, Long> m = a.deviceCounters();
        while (!m.isEmpty() && !m.containsKey("rc_requests_executed") && System.nanoTime() < end) {
            m = a.deviceCounters();
        }
        return m;
    }

    /** A create call: {@code (completion, requestContext, out) -> status}. */
    @FunctionalInterface
    public interface CreateCall<T> {
        int call(CreateCompletion cc, Object ctx, Ref<T> out);
    }

    /** A request call: {@code (completion, requestContext) -> status}. */
    @FunctionalInterface
    public interface RequestCall {
        int call(RequestCompletion rc, Object ctx);
    }

    /** The outcome of a create: final status and the object (null on failure). */
    public record Created<T>(int status, T object, boolean pended) {}

    /** Runs a create and returns its final outcome, whether inline or through the completion. */
    @SuppressWarnings("unchecked")
    public static <T> Created<T> tryCreate(CreateCall<T> call) {
        CompletableFuture<Object[]> f = new CompletableFuture<>();
        Object ctx = new Object();
        Ref<T> ref = new Ref<>();
        int s = call.call((c, st, obj) -> {
            assertThat(c).as("create completion echoes the request context").isSameAs(ctx);
            f.complete(new Object[] {st, obj});
        }, ctx, ref);
        if (s == NtStatus.STATUS_PENDING) {
            assertThat(ref.get()).as("a pending create must not write the out parameter").isNull();
            Object[] r = await(f);
            return new Created<>((Integer) r[0], (T) r[1], true);
        }
        assertThat(f).as("no create completion for an inline result").isNotDone();
        return new Created<>(s, s == NtStatus.STATUS_SUCCESS ? ref.get() : null, false);
    }

    /** Runs a create that must succeed. */
    public static <T> T create(CreateCall<T> call) {
        Created<T> c = tryCreate(call);
        assertThat(c.status()).as("create status %s", NtStatus.describe(c.status())).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(c.object()).isNotNull();
        return c.object();
    }

    /** Starts a request; the future completes with its final status (inline or from the callback). */
    public static CompletableFuture<Integer> start(RequestCall call) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        Object ctx = new Object();
        int[] inline = {0};
        int s = call.call((c, st) -> {
            if (c != ctx) {
                f.completeExceptionally(new AssertionError("request completion must echo the request context"));
            }
            if (inline[0] == 1) {
                f.completeExceptionally(new AssertionError("request completion called for an inline result"));
            }
            f.complete(st);
        }, ctx);
        if (s != NtStatus.STATUS_PENDING) {
            inline[0] = 1;
            if (f.isDone()) {
                return CompletableFuture.failedFuture(new AssertionError("completion called for an inline result"));
            }
            f.complete(s);
        }
        return f;
    }

    /** Runs a request and returns its final status. */
    public static int request(RequestCall call) {
        return await(start(call));
    }

    /** Closes an object and waits until the close has completed. */
    public static void close(NdkClosable o) {
        await(startClose(o));
    }

    /** Starts a close; the future completes when the close has completed (inline or through the callback). */
    public static CompletableFuture<Void> startClose(NdkClosable o) {
        if (o == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        Object ctx = new Object();
        int s = o.close(c -> {
            if (c == ctx) {
                f.complete(null);
            } else {
                f.completeExceptionally(new AssertionError("close completion must echo the context"));
            }
        }, ctx);
        assertThat(s).as("a close returns SUCCESS or PENDING").isIn(NtStatus.STATUS_SUCCESS, NtStatus.STATUS_PENDING);
        if (s == NtStatus.STATUS_SUCCESS) {
            f.complete(null);
        }
        return f;
    }

    /** Waits for a future with the default deadline. */
    public static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError ae) {
                throw ae;
            }
            throw new AssertionError(e.getCause());
        } catch (Exception e) {
            throw new AssertionError("timed out after " + WAIT + " waiting for an outcome", e);
        }
    }

    /** Polls a CQ until one completion arrives (deadline {@link #WAIT}). */
    public static NdkResultEx poll(NdkCq cq) {
        NdkResultEx[] r = {new NdkResultEx()};
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (cq.getCqResultsEx(r, 1) == 1) {
                return r[0];
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        throw new AssertionError("no completion within " + WAIT);
    }

    /** Polls a CQ for {@code n} completions. */
    public static NdkResultEx[] poll(NdkCq cq, int n) {
        NdkResultEx[] out = new NdkResultEx[n];
        for (int i = 0; i < n; i++) {
            out[i] = poll(cq);
        }
        return out;
    }

    /** Asserts the CQ stays empty: drains whatever is queued and expects nothing. */
    public static void assertEmpty(NdkCq cq) {
        NdkResultEx[] r = {new NdkResultEx()};
        assertThat(cq.getCqResultsEx(r, 1)).as("unexpected completion %s", r[0]).isZero();
    }

    /** Waits until {@code condition} holds (deadline {@link #WAIT}). */
    public static void awaitTrue(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Waits until {@code condition} holds or the deadline passes (the caller then asserts). */
    public static void awaitTrueOrTimeout(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /** Object type check helper. */
    public static void assertType(NdkObject o, io.jndk.api.NdkObjectType t) {
        assertThat(o.objectType()).isEqualTo(t);
    }
}
