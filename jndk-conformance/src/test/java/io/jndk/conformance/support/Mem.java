package io.jndk.conformance.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;

/** Memory-area helpers for the conformance suite: registration, logical address mappings, remote failures. */
public final class Mem {
    private Mem() {}

    /** PAGE_SIZE. */
    public static final int PAGE = NdkLogicalAddressMapping.PAGE_SIZE;

    /** Runs {@code NdkRegisterMr} and returns its final status (inline or through the completion). */
    public static int register(NdkMr mr, Mdl mdl, long length, int flags) {
        return Kit.request((rc, c) -> mr.registerMr(mdl, length, flags, rc, c));
    }

    /** Runs {@code NdkDeregisterMr} and returns its final status. */
    public static int deregister(NdkMr mr) {
        return Kit.request(mr::deregisterMr);
    }

    /** Runs {@code NdkInitializeFastRegisterMr} and returns its final status. */
    public static int initialize(NdkMr mr, int pages, boolean remoteAccess) {
        return Kit.request((rc, c) -> mr.initializeFastRegisterMr(pages, remoteAccess, rc, c));
    }

    /**
     * Asserts that a request call took the path the mode asks for: {@code STATUS_PENDING} then the callback with
     * {@code expected} when the mode forces pending, {@code expected} inline otherwise.
     */
    public static void assertPath(Mode mode, Kit.RequestCall call, int expected) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        Object ctx = new Object();
        int s = call.call((c, st) -> {
            if (c != ctx) {
                done.completeExceptionally(new AssertionError("completion must echo the request context"));
            }
            done.complete(st);
        }, ctx);
        if (mode.pend()) {
            assertThat(NtStatus.name(s)).as("inline status with pend=always").isEqualTo("STATUS_PENDING");
            assertThat(NtStatus.name(Kit.await(done))).as("completed status").isEqualTo(NtStatus.name(expected));
        } else {
            assertThat(NtStatus.name(s)).as("inline status").isEqualTo(NtStatus.name(expected));
            assertThat(done).as("no completion for an inline result").isNotDone();
        }
    }

    /** A built mapping and its first byte offset. */
    public record Lam(NdkLogicalAddressMapping mapping, int fbo, int lamSize) {
        /** Logical address of byte {@code offset} of the mapped range (offset counted from the first mapped byte). */
        public long logical(long offset) {
            long pos = fbo + offset;
            return mapping.adapterPage((int) (pos / PAGE)) + pos % PAGE;
        }

        public long[] pages() {
            return mapping.adapterPages();
        }
    }

    /** Builds a mapping of the first {@code length} bytes of {@code mdl}; asserts success. */
    public static Lam buildLam(NdkAdapter a, Mdl mdl, long length) {
        NdkLogicalAddressMapping m = new NdkLogicalAddressMapping((int) (length / PAGE) + 2);
        IntRef size = new IntRef(m.capacityBytes());
        IntRef fbo = new IntRef(-1);
        int s = Kit.request((rc, c) -> a.buildLam(mdl, length, rc, c, m, size, fbo));
        assertThat(NtStatus.name(s)).as("BuildLAM").isEqualTo("STATUS_SUCCESS");
        return new Lam(m, fbo.value, size.value);
    }

    /** An SGE naming {@code len} bytes from byte {@code offset} of a mapping with the privileged token. */
    public static NdkSge sge(Lam lam, long offset, int len, int privilegedToken) {
        return new NdkSge(lam.logical(offset), len, privilegedToken);
    }

    /** Asserts the status of a completion by name (readable failures). */
    public static void assertStatus(NdkResultEx r, int expected) {
        assertThat(NtStatus.name(r.status)).as("completion %s", r).isEqualTo(NtStatus.name(expected));
    }

    /** Asserts an inline status by name. */
    public static void assertStatus(int actual, int expected) {
        assertThat(NtStatus.name(actual)).isEqualTo(NtStatus.name(expected));
    }

    /** Polls one completion and asserts status and type. */
    public static NdkResultEx expect(io.jndk.api.NdkCq cq, int status, int type) {
        NdkResultEx r = Kit.poll(cq);
        assertStatus(r, status);
        assertThat(NdkOperationType.name(r.type)).as("type of %s", r).isEqualTo(NdkOperationType.name(type));
        return r;
    }

    /**
     * Posts an RDMA Write from {@code from}'s QP of {@code len} bytes at {@code off} of {@code src} (registered as
     * {@code srcMr}) to {@code remote} under {@code token}, and expects its successful completion on its CQ.
     */
    public static void write(World.Side from, Buffer src, NdkMr srcMr, long off, int len, long remote, int token) {
        assertThat(from.qp.write("w", new NdkSge[] {src.sge(off, len, srcMr.getLocalToken())}, 1, remote, token, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        expect(from.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
    }

    /** As {@link #write}, for an RDMA Read of {@code len} bytes from {@code remote} into {@code sink} at {@code off}. */
    public static void read(World.Side from, Buffer sink, NdkMr sinkMr, long off, int len, long remote, int token) {
        assertThat(from.qp.read("r", new NdkSge[] {sink.sge(off, len, sinkMr.getLocalToken())}, 1, remote, token, 0))
                .isEqualTo(NtStatus.STATUS_SUCCESS);
        expect(from.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
    }

    /**
     * Asserts that an RDMA Write the peer refused (bad token, rights or bounds) was reported as NDK allows: the write
     * completes with {@code STATUS_REMOTE_RESOURCES}, or — on a transport that completes a write once it is sent
     * (iWARP: the peer's Terminate may arrive after the local completion) — with {@code STATUS_SUCCESS}; either way
     * the connection is then terminated on both sides.
     */
    public static void assertRemoteWriteRefused(World.Pair p, World.Side requester) {
        NdkResultEx r = Kit.poll(requester.cq);
        assertThat(NtStatus.name(r.status)).as("refused write %s", r).isIn("STATUS_REMOTE_RESOURCES", "STATUS_SUCCESS");
        assertThat(NdkOperationType.name(r.type)).isEqualTo("Write");
        assertTerminated(p);
    }

    /** A refused RDMA Read always completes with {@code STATUS_REMOTE_RESOURCES} (no data can have arrived). */
    public static void assertRemoteReadRefused(World.Pair p, World.Side requester) {
        expect(requester.cq, NtStatus.STATUS_REMOTE_RESOURCES, NdkOperationType.READ);
        assertTerminated(p);
    }

    /** Waits until both sides have been told the connection is gone. */
    public static void assertTerminated(World.Pair p) {
        Kit.awaitTrue("disconnect event on both sides", () -> p.a.disconnects.get() > 0 && p.b.disconnects.get() > 0);
    }

    /** Fills {@code len} bytes of a segment with a value. */
    public static void fill(MemorySegment s, long off, long len, byte b) {
        s.asSlice(off, len).fill(b);
    }

    /** Byte at an offset of a segment. */
    public static byte at(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off);
    }
}
