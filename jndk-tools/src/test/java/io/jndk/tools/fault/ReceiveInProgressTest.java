package io.jndk.tools.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.NdkClosable;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.fault.FaultAction;
import io.jndk.iwarp.fault.FaultDirection;
import io.jndk.iwarp.fault.FaultKind;
import io.jndk.iwarp.fault.FaultPlan;
import io.jndk.iwarp.fault.FaultProxy;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A receive the transport has started to fill when the stream stalls (the rest of the Send is lost on the way)
 * must still complete when the consumer closes the QP: the close aborts the connection, and the request, no
 * longer in the receive queue, is not flushed with the queue.
 */
class ReceiveInProgressTest {
    private static final int SIZE = 4096;
    private static final int FORWARDED = 200;

    @Test
    void closingTheQpCompletesAReceiveWhoseSendStalledHalfway() throws Exception {
        Deque<NdkClosable> objects = new ArrayDeque<>();
        try (FaultPair pair = new FaultPair(Map.of("crc", "true"));
             Arena arena = Arena.ofShared()) {
            FaultProxy proxy = FaultProxy.start(pair.address, FaultPlan.none());
            try {
                GuardedRegion src = new GuardedRegion(arena, SIZE, 11);
                GuardedRegion dst = new GuardedRegion(arena, SIZE, 0);
                NdkPd pdA = track(objects, Sync.create("CreatePd", pair.active::createPd));
                NdkPd pdB = track(objects, Sync.create("CreatePd", pair.passive::createPd));
                NdkCq cqA = track(objects, Session.cq(pair.active, 16));
                NdkCq cqB = track(objects, Session.cq(pair.passive, 16));
                NdkMr srcMr = track(objects, register(pdA, src));
                NdkMr dstMr = track(objects, register(pdB, dst));
                NdkQp qpA = track(objects, qp(pdA, cqA));
                NdkQp qpB = track(objects, qp(pdB, cqB));
                Deque<NdkConnector> connectors = new ArrayDeque<>();
                pair.connect(qpA, qpB, proxy.address(), 1, connectors::push);
                connectors.forEach(objects::push);
                // the Send's first octets pass (the DDP header and some payload); the rest never arrives
                proxy.plan((connection, direction, offset, length) -> direction == FaultDirection.TO_CLIENT
                    ? FaultAction.PASS : new FaultAction(FaultKind.DROP, Math.min(FORWARDED, length), 1 << 20));
                assertThat(qpB.receive("rx", new NdkSge[] {dst.sge(0, SIZE, dstMr.getLocalToken())}, 1))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
                assertThat(qpA.send("tx", new NdkSge[] {src.sge(0, SIZE, srcMr.getLocalToken())}, 1, 0))
                    .isEqualTo(NtStatus.STATUS_SUCCESS);
                awaitTrue("the first payload octets placed", () -> dst.holds(0, src, 0, 16));

                for (NdkConnector c : connectors) {
                    Sync.close(c);
                    objects.remove(c);
                }
                Sync.close(qpB);
                objects.remove(qpB);
                NdkResultEx r = poll(cqB);
                assertThat(r.requestContext).isEqualTo("rx");
                assertThat(NtStatus.describe(r.status)).isEqualTo(NtStatus.describe(NtStatus.STATUS_CANCELLED));
            } finally {
                while (!objects.isEmpty()) {
                    Sync.close(objects.pop());
                }
                proxy.close();
            }
        }
    }

    private static <T extends NdkClosable> T track(Deque<NdkClosable> objects, T o) {
        objects.push(o);
        return o;
    }

    private static NdkMr register(NdkPd pd, GuardedRegion r) {
        NdkMr mr = Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(r.mdl(), r.size(), NdkMrFlags.ALLOW_LOCAL_WRITE, rc, c));
        return mr;
    }

    private static NdkQp qp(NdkPd pd, NdkCq cq) {
        return Sync.create("CreateQp", (cc, c, o) -> pd.createQp(cq, cq, null, 4, 4, 1, 1, 0, cc, c, o));
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("timed out waiting for: %s", what).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static NdkResultEx poll(NdkCq cq) {
        NdkResultEx[] r = Session.results(1);
        awaitTrue("a completion", () -> cq.getCqResultsEx(r, 1) == 1);
        return r[0];
    }
}
