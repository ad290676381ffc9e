package io.jndk.conformance;

import io.jndk.api.*;
import java.lang.foreign.*;
import java.net.*;
import java.util.concurrent.*;

/** The complete example of docs/GUIDE.md, compiled and run as a test so the guide stays true. */
public class GuideExample {
    public static void main(String[] args) throws Exception {
        String transport = args.length > 0 ? args[0] : "loopback";   // or "iwarp": the same over real TCP
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (Arena arena = Arena.ofShared();
             NdkAdapter a = Ndk.open(NdkOpenParameters.of(transport, lo));
             NdkAdapter b = Ndk.open(NdkOpenParameters.of(transport, lo))) {

            // Protection domains, completion queues, queue pairs (inline create results).
            Ref<NdkPd> pdA = new Ref<>(), pdB = new Ref<>();
            a.createPd(null, null, pdA);
            b.createPd(null, null, pdB);
            Ref<NdkCq> cqA = new Ref<>(), cqB = new Ref<>();
            a.createCq(64, null, null, null, null, null, cqA);
            b.createCq(64, null, null, null, null, null, cqB);
            Ref<NdkQp> qpA = new Ref<>(), qpB = new Ref<>();
            pdA.get().createQp(cqA.get(), cqA.get(), "A", 16, 16, 1, 1, 0, null, null, qpA);
            pdB.get().createQp(cqB.get(), cqB.get(), "B", 16, 16, 1, 1, 0, null, null, qpB);

            // Register native memory: the MDL's virtual address is the segment's real address.
            MemorySegment bufA = arena.allocate(4096), bufB = arena.allocate(4096);
            bufA.setString(0, "hello from A");
            int all = NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE;
            Ref<NdkMr> mrA = new Ref<>(), mrB = new Ref<>();
            pdA.get().createMr(false, null, null, mrA);
            pdB.get().createMr(false, null, null, mrB);
            mrA.get().registerMr(Mdl.of(bufA), 4096, all, null, null);
            mrB.get().registerMr(Mdl.of(bufB), 4096, all, null, null);

            // B listens; A connects; B accepts in (or after) the connect event; A completes.
            BlockingQueue<NdkConnector> incoming = new LinkedBlockingQueue<>();
            Ref<NdkListener> listener = new Ref<>();
            b.createListener((ctx, c) -> incoming.add(c), null, null, null, listener);
            listener.get().listen(new InetSocketAddress(lo, 0), null, null);
            Ref<InetSocketAddress> where = new Ref<>();
            listener.get().getLocalAddress(where, new IntRef(28));

            Ref<NdkConnector> connA = new Ref<>();
            a.createConnector(null, null, connA);
            CompletableFuture<Integer> connected = new CompletableFuture<>();
            int s = connA.get().connect(qpA.get(), new InetSocketAddress(lo, 0), where.get(), 4, 4,
                    "hi".getBytes(), (ctx, st) -> connected.complete(st), null);
            if (s != NtStatus.STATUS_PENDING) connected.complete(s);
            NdkConnector connB = incoming.poll(10, TimeUnit.SECONDS);
            connB.accept(qpB.get(), 4, 4, null, ctx -> System.out.println("peer left"), null,
                    (ctx, st) -> System.out.println("accept: " + NtStatus.name(st)), null);
            System.out.println("connect: " + NtStatus.name(connected.get(10, TimeUnit.SECONDS)));
            connA.get().completeConnect(null, null, null, null);

            // RDMA Write A -> B, then RDMA Read it back, then Send/Receive.
            NdkSge[] sge = { new NdkSge(bufA.address(), 13, mrA.get().getLocalToken()) };
            qpA.get().write("write-1", sge, 1, bufB.address(), mrB.get().getRemoteToken(), 0);
            NdkResultEx[] r = { new NdkResultEx() };
            while (cqA.get().getCqResultsEx(r, 1) == 0) Thread.onSpinWait();
            System.out.println(r[0]);   // bufA may be reused now; over iwarp the data may still be on its way to B

            NdkSge[] sink = { new NdkSge(bufA.address() + 100, 13, mrA.get().getLocalToken()) };
            qpA.get().read("read-1", sink, 1, bufB.address(), mrB.get().getRemoteToken(), 0);
            while (cqA.get().getCqResultsEx(r, 1) == 0) Thread.onSpinWait();
            // B answers the Read after placing the Write before it: B holds the data, and A has it back.
            System.out.println(r[0] + " -> B holds: " + bufB.getString(0) + ", read back: " + bufA.getString(100));

            qpB.get().receive("recv-1", new NdkSge[] { new NdkSge(bufB.address() + 200, 64, mrB.get().getLocalToken()) }, 1);
            qpA.get().send("send-1", sge, 1, 0);
            while (cqB.get().getCqResultsEx(r, 1) == 0) Thread.onSpinWait();
            System.out.println(r[0] + " -> received " + r[0].bytesTransferred + " bytes");
            while (cqA.get().getCqResultsEx(r, 1) == 0) Thread.onSpinWait();

            // Tear down children first: connectors, listener, MRs, QPs, CQs, PDs; then the adapters.
            connA.get().disconnect(null, null);
            for (NdkClosable o : new NdkClosable[] { connA.get(), connB, listener.get(), mrA.get(), mrB.get(),
                    qpA.get(), qpB.get(), cqA.get(), cqB.get(), pdA.get(), pdB.get() }) {
                o.close(ctx -> { }, null);   // may pend: the adapter close below waits for all of them
            }
        }
    }
}
