package io.jndk.provider;

import io.jndk.api.ConnectEventCallback;
import io.jndk.api.CqNotificationCallback;
import io.jndk.api.CreateCompletion;
import io.jndk.api.GroupAffinity;
import io.jndk.api.IntRef;
import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCounter;
import io.jndk.api.NdkCounters;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkLogicalAddressMapping;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkRdmaTechnology;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.api.RequestCompletion;
import io.jndk.provider.events.TerminateEvent;
import io.jndk.provider.spi.OptionValues;
import io.jndk.provider.spi.Term;
import io.jndk.provider.spi.WireCounters;
import io.jndk.provider.spi.WireTransport;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.logging.Logger;

/**
 * The software adapter: adapter info and limits, the token table, the logical page map, the callback
 * dispatcher, counters, and the objects created under it.
 */
public final class SoftAdapter implements NdkAdapter {
    private static final Logger LOG = Logger.getLogger(SoftAdapter.class.getName());
    private static final AtomicInteger IDS = new AtomicInteger();

    private final NdkVersion version;
    private final NdkAdapterInfo info;
    private final InetAddress address;
    private final Endpoints endpoints;
    private final boolean pendAlways;
    /** Option {@code notify=inline}: CQ notifications run on the engine thread that completed the request. */
    private final boolean inlineNotify;
    private final Dispatcher dispatcher;
    private final TokenTable tokens;
    private final PageMap pageMap;
    private final AtomicLongArray counters = new AtomicLongArray(NdkCounter.values().length);
    /** Data-path counters of connections not yet retired (guarded by itself). */
    private final List<WireCounters> wireCounters = new ArrayList<>();
    private final AtomicInteger liveObjects = new AtomicInteger();
    private final Map<NdkObjectType, AtomicInteger> perType = new EnumMap<>(NdkObjectType.class);
    private final Map<String, String> options;
    private final int id = IDS.incrementAndGet();
    private volatile boolean closed;
    /** This adapter's MBean (option {@code mbean=false}: none). */
    private final AdapterBean bean;

    /** The transport this adapter's connections run over (loopback included). */
    private final WireTransport wire;

    SoftAdapter(NdkVersion version, NdkOpenParameters p, Endpoints endpoints, WireTransport wire) {
        this.version = version;
        this.wire = wire;
        this.options = p.options();
        checkNumbers(options);
        this.registeredBytesLimit = OptionValues.number(options, "limit.registered.bytes", Long.MAX_VALUE, 0,
            Long.MAX_VALUE);
        this.address = p.address() != null ? p.address() : InetAddress.getLoopbackAddress();
        this.endpoints = endpoints;
        this.pendAlways = "always".equals(p.option("pend", "never"));
        String notify = p.option("notify", "dispatcher").trim();
        if (!notify.equals("dispatcher") && !notify.equals("inline")) {
            throw new IllegalArgumentException("option notify=" + notify + ": dispatcher or inline");
        }
        this.inlineNotify = notify.equals("inline");
        this.info = applyOverrides(wire.adapterInfo(defaultInfo(version)), p.options());
        this.dispatcher = new Dispatcher("jndk-" + wire.name() + "-" + id + "-callbacks");
        this.tokens = new TokenTable(limit("limit.tokens", 1 << 20));
        this.pageMap = new PageMap(limit("limit.lampages", 1 << 20));
        for (NdkObjectType t : NdkObjectType.values()) {
            perType.put(t, new AtomicInteger());
        }
        this.bean = "false".equals(p.option("mbean", "true")) ? null : AdapterBean.register(this, wire.name() + "-" + id);
    }

    static NdkAdapterInfo defaultInfo(NdkVersion v) {
        int flags = NdkAdapterFlags.IN_ORDER_DMA_SUPPORTED | NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED
                | NdkAdapterFlags.CQ_INTERRUPT_MODERATION_SUPPORTED | NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED
                | NdkAdapterFlags.CQ_RESIZE_SUPPORTED | NdkAdapterFlags.LOOPBACK_CONNECTIONS_SUPPORTED;
        return new NdkAdapterInfo(v, 0, 1, 1L << 30, 1L << 30, 256, 16, 16, 1, 1 << 30, 256, 128, 128, 16384, 16384,
                16384, 65536, 8192, 252, 252, flags, NdkRdmaTechnology.IWARP);
    }

    /** Options named like an {@link NdkAdapterInfo} component (e.g. {@code maxSrqDepth=0}) override it. */
    static NdkAdapterInfo applyOverrides(NdkAdapterInfo base, Map<String, String> options) {
        RecordComponent[] rc = NdkAdapterInfo.class.getRecordComponents();
        Object[] values = new Object[rc.length];
        Class<?>[] types = new Class<?>[rc.length];
        boolean changed = false;
        try {
            for (int i = 0; i < rc.length; i++) {
                types[i] = rc[i].getType();
                values[i] = rc[i].getAccessor().invoke(base);
                String o = options.get(rc[i].getName());
                if (o != null) {
                    changed = true;
                    if (types[i] == int.class) { // a ULONG: unsigned
                        values[i] = (int) OptionValues.parse(rc[i].getName(), o, 0, 0xFFFF_FFFFL);
                    } else if (types[i] == long.class) {
                        values[i] = OptionValues.parse(rc[i].getName(), o, 0, Long.MAX_VALUE);
                    }
                }
            }
            return changed ? NdkAdapterInfo.class.getDeclaredConstructor(types).newInstance(values) : base;
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("bad adapter info override: " + e, e);
        }
    }

    /**
     * Refuses, when the adapter opens, a number option that would only fail later (at a connect, a registration):
     * every {@code limit.*} and {@code connect.timeout.ms}.
     */
    private static void checkNumbers(Map<String, String> options) {
        if (options == null) {
            return;
        }
        for (String key : options.keySet()) {
            if (key.equals("limit.registered.bytes")) {
                OptionValues.number(options, key, 0, 0, Long.MAX_VALUE);
            } else if (key.startsWith("limit.") || key.equals("connect.timeout.ms")) {
                OptionValues.limit(options, key, 0);
            }
        }
    }

    int limit(String key, int def) {
        return OptionValues.limit(options, key, def);
    }

    // ---- internal services ------------------------------------------------------------------

    NdkAdapterInfo infoInternal() {
        return info;
    }

    /**
     * The rights a Read's sink needs: local write, and the read-sink right (RDMA_READ_SINK at registration) when the
     * adapter's info lacks {@code RDMA_READ_SINK_NOT_REQUIRED} (jndk's adapters report it; the {@code adapterFlags}
     * override can clear it, and the adapter then holds consumers to the rule).
     */
    int readSinkRights() {
        return info.hasFlag(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED) ? TokenTable.RIGHT_LOCAL_WRITE
            : TokenTable.RIGHT_LOCAL_WRITE | TokenTable.RIGHT_READ_SINK;
    }

    InetAddress address() {
        return address;
    }

    /** The transport under this adapter. */
    WireTransport wire() {
        return wire;
    }

    /** An adapter option's value. */
    String option(String key, String def) {
        return options.getOrDefault(key, def);
    }

    /** The endpoint table of this adapter's transport. */
    Endpoints endpoints() {
        return endpoints;
    }

    boolean inlineNotify() {
        return inlineNotify;
    }

    boolean pendAlways() {
        return pendAlways;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    TokenTable tokens() {
        return tokens;
    }

    PageMap pageMap() {
        return pageMap;
    }

    void count(NdkCounter c) {
        counters.incrementAndGet(c.ordinal());
    }

    void count(NdkCounter c, long n) {
        counters.addAndGet(c.ordinal(), n);
    }

    /**
     * Counts a Terminate sent or received (the total and its layer's counter; a received Terminate with no
     * decodable layer, {@code term == 0}, only the total) and records a {@link TerminateEvent}.
     */
    void terminate(boolean sent, int term, SoftQp qp) {
        count(sent ? NdkCounter.TERMINATES_SENT : NdkCounter.TERMINATES_RECEIVED);
        if (term == 0) {
            return;
        }
        int layer = Term.layer(term);
        NdkCounter c = switch (layer) {
            case Term.LAYER_RDMAP -> sent ? NdkCounter.TERMINATES_SENT_RDMAP : NdkCounter.TERMINATES_RECEIVED_RDMAP;
            case Term.LAYER_DDP -> sent ? NdkCounter.TERMINATES_SENT_DDP : NdkCounter.TERMINATES_RECEIVED_DDP;
            default -> sent ? NdkCounter.TERMINATES_SENT_MPA : NdkCounter.TERMINATES_RECEIVED_MPA;
        };
        count(c);
        TerminateEvent.emit(sent, layer == Term.LAYER_RDMAP ? "RDMAP" : layer == Term.LAYER_DDP ? "DDP" : "LLP",
                Term.etype(term), Term.code(term), qp);
    }

    /** Adds a connection's data-path counters to this adapter's (until the connection retires them). */
    void track(WireCounters c) {
        synchronized (wireCounters) {
            sweepRetired(null);
            wireCounters.add(c);
        }
    }

    /**
     * Under the list's lock: folds the final values of retired connections into the counters and drops them;
     * adds the live connections' current values into {@code snapshot} (when not null).
     */
    private void sweepRetired(long[] snapshot) {
        for (Iterator<WireCounters> it = wireCounters.iterator(); it.hasNext(); ) {
            WireCounters c = it.next();
            boolean retired = c.retired();
            long out = c.fpdusOut(), inline = c.fpdusOutInline(), in = c.fpdusIn(), polled = c.fpdusInPolled();
            long direct = c.bytesInDirect();
            long crc = c.crcErrors();
            if (retired) {
                count(NdkCounter.FPDUS_OUT, out);
                count(NdkCounter.FPDUS_OUT_INLINE, inline);
                count(NdkCounter.FPDUS_IN, in);
                count(NdkCounter.FPDUS_IN_POLLED, polled);
                count(NdkCounter.BYTES_IN_DIRECT, direct);
                count(NdkCounter.CRC_ERRORS, crc);
                it.remove();
            } else if (snapshot != null) {
                snapshot[NdkCounter.FPDUS_OUT.ordinal()] += out;
                snapshot[NdkCounter.FPDUS_OUT_INLINE.ordinal()] += inline;
                snapshot[NdkCounter.FPDUS_IN.ordinal()] += in;
                snapshot[NdkCounter.FPDUS_IN_POLLED.ordinal()] += polled;
                snapshot[NdkCounter.BYTES_IN_DIRECT.ordinal()] += direct;
                snapshot[NdkCounter.CRC_ERRORS.ordinal()] += crc;
            }
        }
    }

    /** Reserves a slot for a new object of {@code type}; false when the per-adapter limit is reached. */
    boolean reserve(NdkObjectType type) {
        int max = limit("limit." + type.name().toLowerCase(java.util.Locale.ROOT), Integer.MAX_VALUE);
        AtomicInteger n = perType.get(type);
        if (n.incrementAndGet() > max || closed) {
            n.decrementAndGet();
            return false;
        }
        liveObjects.incrementAndGet();
        return true;
    }

    private final java.util.concurrent.atomic.AtomicLong pinned = new java.util.concurrent.atomic.AtomicLong();
    /** The option {@code limit.registered.bytes}, read when the adapter opens. */
    private final long registeredBytesLimit;

    /**
     * Accounts {@code bytes} of registered memory against the option {@code limit.registered.bytes} (default
     * unlimited); false when it would be exceeded (RegisterMr then fails with STATUS_INSUFFICIENT_RESOURCES).
     */
    boolean pin(long bytes) {
        if (pinned.addAndGet(bytes) > registeredBytesLimit) {
            pinned.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    void unpin(long bytes) {
        pinned.addAndGet(-bytes);
    }

    /** Gives back a slot taken by {@link #reserve} for an object that was never handed out. */
    void unreserve(NdkObjectType type) {
        perType.get(type).decrementAndGet();
        liveObjects.decrementAndGet();
    }

    /**
     * Frees the per-type slot of a closed object. Called before its close completion runs, so that a consumer
     * that learns of the close can create a replacement under a {@code limit.<type>} cap.
     */
    void releaseSlot(SoftObject o) {
        perType.get(o.objectType()).decrementAndGet();
    }

    /** The object's last callback has returned: the adapter close no longer waits for it. */
    void childGone(SoftObject o) {
        liveObjects.decrementAndGet();
    }

    /** Create shape: inline success, or (when configured to pend) the object through the create completion. */
    int completeCreate(SoftObject o, CreateCompletion cc, Object ctx, Ref<?> out) {
        if (pendAlways && cc != null) {
            dispatcher.run(() -> cc.onCreated(ctx, NtStatus.STATUS_SUCCESS, o));
            return NtStatus.STATUS_PENDING;
        }
        @SuppressWarnings("unchecked")
        Ref<Object> r = (Ref<Object>) out;
        if (r != null) {
            r.set(o);
        }
        return NtStatus.STATUS_SUCCESS;
    }

    /** Request shape: an inline final status, or (when configured to pend) the status through the callback. */
    int completeRequest(int status, RequestCompletion rc, Object ctx) {
        if (pendAlways && rc != null) {
            dispatcher.run(() -> rc.onCompleted(ctx, status));
            return NtStatus.STATUS_PENDING;
        }
        return status;
    }

    /** Delivers a request's outcome later through its completion (used by requests that must wait). */
    void completeLater(RequestCompletion rc, Object ctx, int status) {
        if (rc != null) {
            dispatcher.run(() -> rc.onCompleted(ctx, status));
        }
    }

    // ---- NDK_ADAPTER_DISPATCH ----------------------------------------------------------------

    @Override
    public NdkVersion version() {
        return version;
    }

    @Override
    public NdkObjectType objectType() {
        return NdkObjectType.ADAPTER;
    }

    @Override
    public int queryExtension(UUID id, NdkVersion v, Ref<Object> out) {
        return NtStatus.STATUS_NOT_SUPPORTED;
    }

    @Override
    public int queryAdapterInfo(Ref<NdkAdapterInfo> out, IntRef bufferSize) {
        if (bufferSize == null || Integer.compareUnsigned(bufferSize.value, NdkAdapterInfo.SIZE_X64) < 0) { // ULONG
            if (bufferSize != null) {
                bufferSize.value = NdkAdapterInfo.SIZE_X64;
            }
            return NtStatus.STATUS_BUFFER_TOO_SMALL;
        }
        bufferSize.value = NdkAdapterInfo.SIZE_X64;
        if (out != null) {
            out.set(info);
        }
        return NtStatus.STATUS_SUCCESS;
    }

    @Override
    public NdkAdapterInfo info() {
        return info;
    }

    @Override
    public int createCq(int cqDepth, CqNotificationCallback cb, Object cbCtx, GroupAffinity affinity, CreateCompletion cc,
            Object ctx, Ref<NdkCq> out) {
        if (cqDepth == 0 || Integer.compareUnsigned(cqDepth, info.maxCqDepth()) > 0) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!reserve(NdkObjectType.CQ)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        return completeCreate(new SoftCq(this, cqDepth, cb, cbCtx), cc, ctx, out);
    }

    @Override
    public int createPd(CreateCompletion cc, Object ctx, Ref<NdkPd> out) {
        if (!reserve(NdkObjectType.PD)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftPd pd = new SoftPd(this);
        if (!pd.hasPrivilegedToken()) {
            unreserve(NdkObjectType.PD);
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        return completeCreate(pd, cc, ctx, out);
    }

    @Override
    public int createSharedEndpoint(InetSocketAddress addr, CreateCompletion cc, Object ctx, Ref<NdkSharedEndpoint> out) {
        if (addr == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!reserve(NdkObjectType.SHARED_ENDPOINT)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        SoftSharedEndpoint se = new SoftSharedEndpoint(this);
        int s = se.bind(addr);
        if (s != NtStatus.STATUS_SUCCESS) {
            unreserve(NdkObjectType.SHARED_ENDPOINT);
            return s;
        }
        return completeCreate(se, cc, ctx, out);
    }

    @Override
    public int createConnector(CreateCompletion cc, Object ctx, Ref<NdkConnector> out) {
        if (!reserve(NdkObjectType.CONNECTOR)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        return completeCreate(new SoftConnector(this, null), cc, ctx, out);
    }

    @Override
    public int createListener(ConnectEventCallback cb, Object cbCtx, CreateCompletion cc, Object ctx, Ref<NdkListener> out) {
        if (!reserve(NdkObjectType.LISTENER)) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        return completeCreate(new SoftListener(this, cb, cbCtx), cc, ctx, out);
    }

    @Override
    public int buildLam(Mdl mdl, long length, RequestCompletion rc, Object ctx, NdkLogicalAddressMapping lam, IntRef lamSize,
            IntRef fbo) {
        if (mdl == null || lam == null || length == 0 || Long.compareUnsigned(length, mdl.byteCount()) > 0) { // SIZE_T
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        if (!mdl.isVirtuallyContiguous(length)) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        long va = mdl.virtualAddress();
        int first = (int) (va & (PageMap.PAGE - 1));
        long pagesL = (first + length + PageMap.PAGE - 1) / PageMap.PAGE;
        if (pagesL > Integer.MAX_VALUE / 16) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        int pages = (int) pagesL;
        int required = NdkLogicalAddressMapping.sizeFor(pages);
        if (lam.capacityPages() < pages) {
            if (lamSize != null) {
                lamSize.value = required;
            }
            return NtStatus.STATUS_BUFFER_TOO_SMALL;
        }
        long[] logical = pageMap.mapPages(mdl.segments().toArray(new MemorySegment[0]), va, length, pages, lam);
        if (logical == null) {
            return NtStatus.STATUS_INSUFFICIENT_RESOURCES;
        }
        lam.fill(this, logical, pages);
        if (lamSize != null) {
            lamSize.value = required;
        }
        if (fbo != null) {
            fbo.value = first;
        }
        return completeRequest(NtStatus.STATUS_SUCCESS, rc, ctx);
    }

    @Override
    public void releaseLam(NdkLogicalAddressMapping lam) {
        if (lam == null || lam.adapterContext() != this) {
            return;
        }
        for (long p : lam.adapterPages()) {
            pageMap.unmap(p);
        }
        lam.clear();
    }

    @Override
    public String transport() {
        return wire.name();
    }

    @Override
    public java.util.Map<String, Long> deviceCounters() {
        return wire.deviceCounters();
    }

    @Override
    public NdkCounters counters() {
        long[] v = new long[counters.length()];
        synchronized (wireCounters) {
            sweepRetired(v);
            for (int i = 0; i < v.length; i++) {
                v[i] += counters.get(i);
            }
        }
        return new NdkCounters(v);
    }

    /** This adapter's MBean name, or null when it has none. */
    public javax.management.ObjectName mbeanName() {
        return bean == null ? null : bean.name();
    }

    /** Number of objects created under this adapter and not yet closed. */
    public int liveObjects() {
        return liveObjects.get();
    }

    @Override
    public void close() {
        if (dispatcher.onDispatcherThread() || io.jndk.provider.spi.EngineThread.isEngineThread()) {
            // a callback's thread (the dispatcher's, or an engine's with notify=inline): the close would wait for the
            // very thread that must release the objects it waits for
            throw new IllegalStateException("the adapter close blocks and must not be called from a callback");
        }
        long start = System.nanoTime();
        long lastLog = start;
        while (liveObjects.get() > 0) {
            Thread.onSpinWait();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (System.nanoTime() - lastLog > 5_000_000_000L) {
                lastLog = System.nanoTime();
                LOG.warning("adapter close waits for " + liveObjects.get() + " open object(s); close them first");
            }
        }
        dispatcher.awaitQuiet(10_000);
        closed = true;
        if (bean != null) {
            bean.unregister();
        }
        wire.shutdown();
        dispatcher.shutdown();
    }

    @Override
    public String toString() {
        return "SoftAdapter[" + wire.name() + " " + address.getHostAddress() + " #" + id + " v" + version + "]";
    }
}
