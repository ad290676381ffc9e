package io.jndk.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkAdapterFlags;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkCqNotifyType;
import io.jndk.api.NdkListener;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkObject;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkRdmaTechnology;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NdkSrq;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.conformance.support.Kit;
import io.jndk.conformance.support.Mode;
import io.jndk.conformance.support.Queues;
import io.jndk.conformance.support.World;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adapter: OpenNDKAdapterHandler version negotiation and disabled adapters, {@code NdkQueryAdapterInfo},
 * the x64 {@code NDK_ADAPTER_INFO} layout, {@code NdkQueryExtension} on every object type, object headers,
 * the exact values of the NDK constants, per-adapter object limits on {@code NdkCreateCq}, {@code NdkCreatePd},
 * {@code NdkCreateQp}, {@code NdkCreateQpWithSrq}, {@code NdkCreateSrq}, {@code NdkCreateMr}, {@code NdkCreateMw},
 * {@code NdkCreateConnector}, {@code NdkCreateListener}, {@code NdkCreateSharedEndpoint}, and the pending path of
 * every create.
 */
@ParameterizedClass
@MethodSource("io.jndk.conformance.support.Modes#all")
@Timeout(60)
class AdapterConformanceTest {
    @Parameter
    Mode mode;

    World w;

    @BeforeEach
    void setUp() {
        w = new World(mode);
    }

    /** A class-level timeout does not cover lifecycle methods; the world close blocks while objects leak. */
    @AfterEach
    @Timeout(60)
    void tearDown() {
        w.close();
    }

    // ---- open ---------------------------------------------------------------------------------

    @Test
    void openRequestingOneZeroRunsAtOneTwo() {
        Ref<NdkVersion> ran = new Ref<>();
        assertThat(Queues.openStatus(mode, new NdkVersion(1, 0), Map.of(), ran)).isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        assertThat(ran.get()).isEqualTo(NdkVersion.V1_2);
    }

    @Test
    void openRequestingOneOneRunsAtOneTwo() {
        Ref<NdkVersion> ran = new Ref<>();
        assertThat(Queues.openStatus(mode, NdkVersion.V1_1, Map.of(), ran)).isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        assertThat(ran.get()).isEqualTo(NdkVersion.V1_2);
    }

    @Test
    void openRequestingTwoZeroRunsAtTwoOne() {
        Ref<NdkVersion> ran = new Ref<>();
        assertThat(Queues.openStatus(mode, new NdkVersion(2, 0), Map.of(), ran)).isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        assertThat(ran.get()).isEqualTo(NdkVersion.V2_1);
    }

    @Test
    void openRequestingMinorAboveHighestIsBadVersion() {
        assertThat(Queues.openStatus(mode, new NdkVersion(1, 3), Map.of(), null)).isEqualTo(NtStatus.NDIS_STATUS_BAD_VERSION);
        assertThat(Queues.openStatus(mode, new NdkVersion(2, 2), Map.of(), null)).isEqualTo(NtStatus.NDIS_STATUS_BAD_VERSION);
    }

    @Test
    void openRequestingUnsupportedMajorIsBadVersion() {
        assertThat(Queues.openStatus(mode, new NdkVersion(3, 0), Map.of(), null)).isEqualTo(NtStatus.NDIS_STATUS_BAD_VERSION);
        assertThat(Queues.openStatus(mode, new NdkVersion(0, 9), Map.of(), null)).isEqualTo(NtStatus.NDIS_STATUS_BAD_VERSION);
    }

    @Test
    void openOnDisabledAdapterIsAdapterNotReady() {
        assertThat(Queues.openStatus(mode, NdkVersion.V2_1, Map.of("enabled", "false"), null))
                .isEqualTo(NtStatus.NDIS_STATUS_ADAPTER_NOT_READY);
    }

    @Test
    void negotiatedVersionAppearsInAdapterInfoAndEveryObjectHeader() {
        Ref<NdkAdapter> ref = new Ref<>();
        assertThat(io.jndk.api.Ndk.openAdapter(mode.params(Map.of()).withVersion(new NdkVersion(1, 0)), ref))
                .isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        NdkAdapter a = ref.get();
        try {
            assertThat(a.version()).isEqualTo(NdkVersion.V1_2);
            assertThat(a.info().version()).isEqualTo(NdkVersion.V1_2);
            NdkCq cq = Kit.create((cc, c, o) -> a.createCq(8, null, null, null, cc, c, o));
            NdkPd pd = Kit.create(a::createPd);
            assertThat(cq.version()).isEqualTo(NdkVersion.V1_2);
            assertThat(pd.version()).isEqualTo(NdkVersion.V1_2);
            Kit.close(cq);
            Kit.close(pd);
        } finally {
            a.close();
        }
    }

    // ---- NdkQueryAdapterInfo ------------------------------------------------------------------

    @Test
    void queryAdapterInfoTooSmallBufferReturnsBufferTooSmallWithRequiredSize() {
        NdkAdapter a = w.adapter();
        for (int size : new int[] {0, 1, 64, 103}) {
            Ref<NdkAdapterInfo> info = new Ref<>();
            IntRef len = new IntRef(size);
            assertThat(a.queryAdapterInfo(info, len)).as("buffer of %d", size).isEqualTo(NtStatus.STATUS_BUFFER_TOO_SMALL);
            assertThat(len.value).isEqualTo(104);
            assertThat(info.get()).isNull();
        }
    }

    @Test
    void queryAdapterInfoWritesInfoAndReportsBytesWritten() {
        NdkAdapter a = w.adapter();
        for (int size : new int[] {104, 4096}) {
            Ref<NdkAdapterInfo> info = new Ref<>();
            IntRef len = new IntRef(size);
            assertThat(a.queryAdapterInfo(info, len)).isEqualTo(NtStatus.STATUS_SUCCESS);
            assertThat(len.value).isEqualTo(NdkAdapterInfo.SIZE_X64).isEqualTo(104);
            assertThat(info.get()).isEqualTo(a.info());
        }
    }

    @Test
    void adapterInfoFieldsAreSane() {
        NdkAdapter a = w.adapter();
        NdkAdapterInfo i = a.info();
        assertThat(i.version()).isEqualTo(a.version()).isEqualTo(NdkVersion.V2_1);
        assertThat(i.frmrPageCount()).as("FRMRPageCount").isGreaterThanOrEqualTo(16);
        assertThat(i.rdmaTechnology()).as("the wire's technology")
                .isEqualTo(mode.transport().equals("roce") ? NdkRdmaTechnology.ROCE_V2 : NdkRdmaTechnology.IWARP);
        assertThat(i.maxRegistrationSize()).isPositive();
        assertThat(i.maxWindowSize()).isPositive();
        assertThat(i.maxInitiatorRequestSge()).isPositive();
        assertThat(i.maxReceiveRequestSge()).isPositive();
        assertThat(i.maxReadRequestSge()).isEqualTo(1);
        assertThat(Integer.toUnsignedLong(i.maxTransferLength())).isPositive();
        assertThat(i.maxInlineDataSize()).isNotNegative();
        assertThat(i.maxInboundReadLimit()).isPositive();
        assertThat(i.maxOutboundReadLimit()).isPositive();
        assertThat(i.maxReceiveQueueDepth()).isPositive();
        assertThat(i.maxInitiatorQueueDepth()).isPositive();
        assertThat(i.maxSrqDepth()).isPositive();
        assertThat(i.maxCqDepth()).isPositive();
        // MPA private data is at most 512 bytes; MPA v2 uses 4 of them for IRD/ORD
        assertThat(i.maxCallerData()).isBetween(0, 508);
        assertThat(i.maxCalleeData()).isBetween(0, 508);
        int defined = NdkAdapterFlags.IN_ORDER_DMA_SUPPORTED | NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED
                | NdkAdapterFlags.CQ_INTERRUPT_MODERATION_SUPPORTED | NdkAdapterFlags.MULTI_ENGINE_SUPPORTED
                | NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED | NdkAdapterFlags.CQ_RESIZE_SUPPORTED
                | NdkAdapterFlags.LOOPBACK_CONNECTIONS_SUPPORTED;
        assertThat(i.adapterFlags() & ~defined).as("undefined adapter flag bits").isZero();
        for (int f : new int[] {NdkAdapterFlags.IN_ORDER_DMA_SUPPORTED, NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED,
                NdkAdapterFlags.CQ_RESIZE_SUPPORTED, NdkAdapterFlags.LOOPBACK_CONNECTIONS_SUPPORTED,
                NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED}) {
            assertThat(i.hasFlag(f)).as("adapter flag 0x%x", f).isTrue();
        }
    }

    @Test
    void adapterInfoOptionOverridesAField() {
        NdkAdapter a = w.adapter(Map.of("maxTransferLength", "4096", "adapterFlags", "0x2"));
        assertThat(a.info().maxTransferLength()).isEqualTo(4096);
        assertThat(a.info().adapterFlags()).isEqualTo(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED);
    }

    /** Number options read 0x hex as unsigned 32 bits: 0xFFFFFFFF is a ULONG's largest value, a limit that large none. */
    @Test
    void numberOptionsTakeTheLargestUlong() {
        NdkAdapter a = w.adapter(Map.of("limit.cq", "0xFFFFFFFF", "maxCqDepth", "0xFFFFFFFF", "connect.timeout.ms",
                "4294967295"));
        assertThat(Integer.toUnsignedLong(a.info().maxCqDepth())).isEqualTo(0xFFFF_FFFFL);
        w.cq(a, 16);
        w.cq(a, 16);
    }

    /** A value an option does not take is refused when the adapter opens, with a sentence naming it. */
    @ParameterizedTest
    @CsvSource(delimiter = '=', value = {"limit.cq=12x", "limit.qp=-1", "limit.tokens=0x1FFFFFFFF",
            "connect.timeout.ms=soon", "maxCqDepth=0x100000000", "maxTransferLength=-5", "accept.timeout.ms=0",
            "limit.registered.bytes=lots"})
    void aBadNumberOptionIsRefusedAtOpenWithASentence(String key, String value) {
        assertThatThrownBy(() -> w.adapter(Map.of(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("adapter option " + key + "=" + value + ": not a whole number from");
        w.adapter(Map.of()); // and an adapter with good options opens beside it
    }

    @Test
    void adapterInfoWriteToUsesTheX64Layout() {
        NdkAdapterInfo i = new NdkAdapterInfo(new NdkVersion(0x0102, 0x0304), 0x05060708, 0x090A0B0C, 0x1112131415161718L,
                0x2122232425262728L, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E,
                0x3F, 0x40, 0x41);
        ByteBuffer b = ByteBuffer.allocate(NdkAdapterInfo.SIZE_X64).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < b.capacity(); k++) {
            b.put(k, (byte) 0xEE);
        }
        i.writeTo(b);
        assertThat(NdkAdapterInfo.SIZE_X64).isEqualTo(0x68);
        assertThat(b.getShort(0x00)).isEqualTo((short) 0x0102);
        assertThat(b.getShort(0x02)).isEqualTo((short) 0x0304);
        assertThat(b.getInt(0x04)).isEqualTo(0x05060708);
        assertThat(b.getInt(0x08)).isEqualTo(0x090A0B0C);
        assertThat(b.getInt(0x0C)).as("padding").isZero();
        assertThat(b.getLong(0x10)).isEqualTo(0x1112131415161718L);
        assertThat(b.getLong(0x18)).isEqualTo(0x2122232425262728L);
        int[] ulongs = {0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x41};
        for (int k = 0; k < ulongs.length; k++) {
            assertThat(b.getInt(0x20 + 4 * k)).as("ULONG at 0x%x", 0x20 + 4 * k).isEqualTo(ulongs[k]);
        }
        assertThat(b.getInt(0x5C)).as("AdapterFlags").isEqualTo(0x40);
        assertThat(b.getInt(0x60)).as("RdmaTechnology").isEqualTo(0x41);
        assertThat(b.getInt(0x64)).as("tail padding").isZero();
    }

    // ---- objects: headers and NdkQueryExtension ------------------------------------------------

    /** One object of every type on {@code a}, in creation order (adapter first). */
    private List<NdkObject> everyObject(NdkAdapter a) {
        List<NdkObject> all = new ArrayList<>();
        all.add(a);
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        all.add(pd);
        all.add(cq);
        all.add(w.qp(pd, cq, "qp"));
        all.add(w.mr(pd, false));
        all.add(w.track(Kit.<NdkMw>create(pd::createMw)));
        all.add(w.track(Kit.<NdkSrq>create((cc, c, o) -> pd.createSrq(8, 1, 0, null, null, null, cc, c, o))));
        all.add(w.track(Kit.<NdkConnector>create(a::createConnector)));
        all.add(w.track(Kit.<NdkListener>create((cc, c, o) -> a.createListener((x, y) -> {}, null, cc, c, o))));
        all.add(w.track(Kit.<NdkSharedEndpoint>create((cc, c, o) -> a.createSharedEndpoint(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cc, c, o))));
        return all;
    }

    @Test
    void queryExtensionIsNotSupportedOnEveryObjectType() {
        NdkAdapter a = w.adapter();
        for (NdkObject o : everyObject(a)) {
            Ref<Object> ext = new Ref<>();
            assertThat(o.queryExtension(UUID.randomUUID(), NdkVersion.V1_1, ext)).as("%s", o.objectType())
                    .isEqualTo(NtStatus.STATUS_NOT_SUPPORTED);
            assertThat(ext.get()).isNull();
        }
    }

    @Test
    void objectHeadersCarryNegotiatedVersionAndExactObjectType() {
        NdkAdapter a = w.adapter();
        List<NdkObject> all = everyObject(a);
        NdkObjectType[] expected = {NdkObjectType.ADAPTER, NdkObjectType.PD, NdkObjectType.CQ, NdkObjectType.QP,
            NdkObjectType.MR, NdkObjectType.MW, NdkObjectType.SRQ, NdkObjectType.CONNECTOR, NdkObjectType.LISTENER,
            NdkObjectType.SHARED_ENDPOINT};
        for (int k = 0; k < expected.length; k++) {
            NdkObject o = all.get(k);
            assertThat(o.objectType()).isEqualTo(expected[k]);
            assertThat(o.objectType().value).isNotZero();
            assertThat(o.version()).as("%s header version", expected[k]).isEqualTo(a.version());
        }
    }

    // ---- constants ----------------------------------------------------------------------------

    @Test
    void ntStatusValuesAreExact() {
        Map<Integer, Integer> v = new LinkedHashMap<>();
        v.put(NtStatus.STATUS_SUCCESS, 0x00000000);
        v.put(NtStatus.STATUS_PENDING, 0x00000103);
        v.put(NtStatus.STATUS_BUFFER_OVERFLOW, 0x80000005);
        v.put(NtStatus.STATUS_DEVICE_BUSY, 0x80000011);
        v.put(NtStatus.STATUS_NO_MORE_ENTRIES, 0x8000001A);
        v.put(NtStatus.STATUS_UNSUCCESSFUL, 0xC0000001);
        v.put(NtStatus.STATUS_ACCESS_VIOLATION, 0xC0000005);
        v.put(NtStatus.STATUS_INVALID_HANDLE, 0xC0000008);
        v.put(NtStatus.STATUS_INVALID_PARAMETER, 0xC000000D);
        v.put(NtStatus.STATUS_INVALID_DEVICE_REQUEST, 0xC0000010);
        v.put(NtStatus.STATUS_NO_MEMORY, 0xC0000017);
        v.put(NtStatus.STATUS_BUFFER_TOO_SMALL, 0xC0000023);
        v.put(NtStatus.STATUS_INVALID_PARAMETER_MIX, 0xC0000030);
        v.put(NtStatus.STATUS_DATA_OVERRUN, 0xC000003C);
        v.put(NtStatus.STATUS_SHARING_VIOLATION, 0xC0000043);
        v.put(NtStatus.STATUS_INSUFFICIENT_RESOURCES, 0xC000009A);
        v.put(NtStatus.STATUS_DEVICE_NOT_READY, 0xC00000A3);
        v.put(NtStatus.STATUS_IO_TIMEOUT, 0xC00000B5);
        v.put(NtStatus.STATUS_NOT_SUPPORTED, 0xC00000BB);
        v.put(NtStatus.STATUS_REQUEST_NOT_ACCEPTED, 0xC00000D0);
        v.put(NtStatus.STATUS_INTERNAL_ERROR, 0xC00000E5);
        v.put(NtStatus.STATUS_CANCELLED, 0xC0000120);
        v.put(NtStatus.STATUS_REMOTE_RESOURCES, 0xC000013D);
        v.put(NtStatus.STATUS_INVALID_ADDRESS, 0xC0000141);
        v.put(NtStatus.STATUS_INVALID_DEVICE_STATE, 0xC0000184);
        v.put(NtStatus.STATUS_INVALID_BUFFER_SIZE, 0xC0000206);
        v.put(NtStatus.STATUS_TOO_MANY_ADDRESSES, 0xC0000209);
        v.put(NtStatus.STATUS_ADDRESS_ALREADY_EXISTS, 0xC000020A);
        v.put(NtStatus.STATUS_CONNECTION_DISCONNECTED, 0xC000020C);
        v.put(NtStatus.STATUS_CONNECTION_RESET, 0xC000020D);
        v.put(NtStatus.STATUS_CONNECTION_REFUSED, 0xC0000236);
        v.put(NtStatus.STATUS_GRACEFUL_DISCONNECT, 0xC0000237);
        v.put(NtStatus.STATUS_CONNECTION_INVALID, 0xC000023A);
        v.put(NtStatus.STATUS_CONNECTION_ACTIVE, 0xC000023B);
        v.put(NtStatus.STATUS_NETWORK_UNREACHABLE, 0xC000023C);
        v.put(NtStatus.STATUS_HOST_UNREACHABLE, 0xC000023D);
        v.put(NtStatus.STATUS_REQUEST_ABORTED, 0xC0000240);
        v.put(NtStatus.STATUS_CONNECTION_ABORTED, 0xC0000241);
        v.put(NtStatus.STATUS_DEVICE_REMOVED, 0xC00002B6);
        v.put(NtStatus.STATUS_IMPLEMENTATION_LIMIT, 0xC000042B);
        assertThat(v).hasSize(40);
        v.forEach((actual, exp) -> assertThat(actual).as("%s", NtStatus.name(exp)).isEqualTo(exp));
        assertThat(NtStatus.NDIS_STATUS_SUCCESS).isEqualTo(0x00000000);
        assertThat(NtStatus.NDIS_STATUS_BAD_VERSION).isEqualTo(0xC0010004);
        assertThat(NtStatus.NDIS_STATUS_ADAPTER_NOT_READY).isEqualTo(0xC0010011);
        assertThat(NtStatus.NDIS_STATUS_RESOURCES).isEqualTo(0xC000009A).isEqualTo(NtStatus.STATUS_INSUFFICIENT_RESOURCES);
        assertThat(NtStatus.isSuccess(NtStatus.STATUS_PENDING)).isTrue();
        assertThat(NtStatus.isSuccess(NtStatus.STATUS_BUFFER_OVERFLOW)).as("warnings are failures").isFalse();
    }

    @Test
    void opFlagValuesAreExact() {
        assertThat(NdkOpFlags.SILENT_SUCCESS).isEqualTo(0x1);
        assertThat(NdkOpFlags.READ_FENCE).isEqualTo(0x2);
        assertThat(NdkOpFlags.SEND_AND_SOLICIT_EVENT).isEqualTo(0x4);
        assertThat(NdkOpFlags.ALLOW_REMOTE_READ).isEqualTo(0x8);
        assertThat(NdkOpFlags.ALLOW_LOCAL_WRITE).isEqualTo(0x10);
        assertThat(NdkOpFlags.ALLOW_REMOTE_WRITE).isEqualTo(0x30);
        assertThat(NdkOpFlags.INLINE).isEqualTo(0x40);
        assertThat(NdkOpFlags.RDMA_READ_SINK).isEqualTo(0x80);
        assertThat(NdkOpFlags.RDMA_READ_LOCAL_INVALIDATE).isEqualTo(0x100);
        assertThat(NdkOpFlags.DEFER).isEqualTo(0x200);
    }

    @Test
    void mrFlagValuesAreExact() {
        assertThat(NdkMrFlags.ALLOW_LOCAL_READ).isEqualTo(0x0);
        assertThat(NdkMrFlags.ALLOW_LOCAL_WRITE).isEqualTo(0x1);
        assertThat(NdkMrFlags.ALLOW_REMOTE_READ).isEqualTo(0x2);
        assertThat(NdkMrFlags.ALLOW_REMOTE_WRITE).isEqualTo(0x5);
        assertThat(NdkMrFlags.RDMA_READ_SINK).isEqualTo(0x8);
    }

    @Test
    void adapterFlagValuesAreExact() {
        assertThat(NdkAdapterFlags.IN_ORDER_DMA_SUPPORTED).isEqualTo(0x1);
        assertThat(NdkAdapterFlags.RDMA_READ_SINK_NOT_REQUIRED).isEqualTo(0x2);
        assertThat(NdkAdapterFlags.CQ_INTERRUPT_MODERATION_SUPPORTED).isEqualTo(0x4);
        assertThat(NdkAdapterFlags.MULTI_ENGINE_SUPPORTED).isEqualTo(0x8);
        assertThat(NdkAdapterFlags.RDMA_READ_LOCAL_INVALIDATE_SUPPORTED).isEqualTo(0x10);
        assertThat(NdkAdapterFlags.CQ_RESIZE_SUPPORTED).isEqualTo(0x100);
        assertThat(NdkAdapterFlags.LOOPBACK_CONNECTIONS_SUPPORTED).isEqualTo(0x10000);
    }

    @Test
    void operationTypeObjectTypeArmAndTechnologyValuesAreExact() {
        assertThat(new int[] {NdkOperationType.RECEIVE, NdkOperationType.SEND, NdkOperationType.FAST_REGISTER,
            NdkOperationType.BIND, NdkOperationType.INVALIDATE, NdkOperationType.READ, NdkOperationType.WRITE,
            NdkOperationType.RECEIVE_AND_INVALIDATE}).containsExactly(0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x8001);
        int k = 0;
        for (NdkObjectType t : NdkObjectType.values()) {
            assertThat(t.value).as("%s", t).isEqualTo(k++);
        }
        assertThat(NdkObjectType.SRQ.value).isEqualTo(10);
        assertThat(NdkObjectType.MAX).isEqualTo(11);
        assertThat(new int[] {NdkCqNotifyType.ERRORS, NdkCqNotifyType.ANY, NdkCqNotifyType.SOLICITED}).containsExactly(0, 1, 2);
        assertThat(new int[] {NdkRdmaTechnology.UNDEFINED, NdkRdmaTechnology.IWARP, NdkRdmaTechnology.INFINIBAND,
            NdkRdmaTechnology.ROCE, NdkRdmaTechnology.ROCE_V2, NdkRdmaTechnology.MAX_TECHNOLOGY})
                .containsExactly(0, 1, 2, 3, 4, 5);
    }

    // ---- per-adapter limits -------------------------------------------------------------------

    /** Creates objects of one kind until the limit of one; the second create fails; a close frees the slot. */
    private <T extends io.jndk.api.NdkClosable> void limitOfOne(Kit.CreateCall<T> create) {
        T first = Kit.create(create);
        Kit.Created<T> second = Kit.tryCreate(create);
        assertThat(NtStatus.name(second.status())).isEqualTo(NtStatus.name(NtStatus.STATUS_INSUFFICIENT_RESOURCES));
        assertThat(second.object()).isNull();
        Kit.close(first);
        w.track(Kit.create(create));
    }

    @Test
    void cqLimitMakesCreateCqInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.cq", "1"));
        this.<NdkCq>limitOfOne((cc, c, o) -> a.createCq(4, null, null, null, cc, c, o));
    }

    @Test
    void pdLimitMakesCreatePdInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.pd", "1"));
        this.<NdkPd>limitOfOne(a::createPd);
    }

    @Test
    void qpLimitMakesCreateQpInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.qp", "1"));
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        this.<NdkQp>limitOfOne((cc, c, o) -> pd.createQp(cq, cq, "q", 4, 4, 1, 1, 0, cc, c, o));
    }

    @Test
    void qpLimitMakesCreateQpWithSrqInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.qp", "1"));
        NdkPd pd = w.pd(a);
        NdkCq cq = w.cq(a, 16);
        NdkSrq srq = w.track(Kit.<NdkSrq>create((cc, c, o) -> pd.createSrq(8, 1, 0, null, null, null, cc, c, o)));
        this.<NdkQp>limitOfOne((cc, c, o) -> pd.createQpWithSrq(cq, cq, srq, "q", 4, 1, 0, cc, c, o));
    }

    @Test
    void mrLimitMakesCreateMrInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.mr", "1"));
        NdkPd pd = w.pd(a);
        this.<NdkMr>limitOfOne((cc, c, o) -> pd.createMr(false, cc, c, o));
    }

    @Test
    void mwLimitMakesCreateMwInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.mw", "1"));
        NdkPd pd = w.pd(a);
        this.<NdkMw>limitOfOne(pd::createMw);
    }

    @Test
    void srqLimitMakesCreateSrqInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.srq", "1"));
        NdkPd pd = w.pd(a);
        this.<NdkSrq>limitOfOne((cc, c, o) -> pd.createSrq(8, 1, 0, null, null, null, cc, c, o));
    }

    @Test
    void connectorLimitMakesCreateConnectorInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.connector", "1"));
        this.<NdkConnector>limitOfOne(a::createConnector);
    }

    @Test
    void listenerLimitMakesCreateListenerInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.listener", "1"));
        this.<NdkListener>limitOfOne((cc, c, o) -> a.createListener((x, y) -> {}, null, cc, c, o));
    }

    @Test
    void sharedEndpointLimitMakesCreateSharedEndpointInsufficientResources() {
        NdkAdapter a = w.adapter(Map.of("limit.shared_endpoint", "1"));
        this.<NdkSharedEndpoint>limitOfOne((cc, c, o) -> a.createSharedEndpoint(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cc, c, o));
    }

    // ---- the pending create path --------------------------------------------------------------

    /** A create forced onto the pending path: STATUS_PENDING, the out parameter untouched, the object via the completion. */
    private <T extends io.jndk.api.NdkClosable> T pended(Kit.CreateCall<T> create, NdkObjectType type) {
        Kit.Created<T> c = Kit.tryCreate(create);
        assertThat(c.pended()).as("%s create pended", type).isTrue();
        assertThat(c.status()).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(c.object()).isNotNull();
        assertThat(c.object().objectType()).isEqualTo(type);
        return w.track(c.object());
    }

    @Test
    void everyCreateOnThePendingPathDeliversTheObjectOnlyThroughTheCompletion() {
        NdkAdapter a = w.adapter(Map.of("pend", "always"));
        NdkCq cq = this.<NdkCq>pended((cc, c, o) -> a.createCq(16, null, null, null, cc, c, o), NdkObjectType.CQ);
        NdkPd pd = this.<NdkPd>pended(a::createPd, NdkObjectType.PD);
        this.<NdkConnector>pended(a::createConnector, NdkObjectType.CONNECTOR);
        this.<NdkListener>pended((cc, c, o) -> a.createListener((x, y) -> {}, null, cc, c, o), NdkObjectType.LISTENER);
        this.<NdkSharedEndpoint>pended((cc, c, o) -> a.createSharedEndpoint(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cc, c, o),
                NdkObjectType.SHARED_ENDPOINT);
        NdkMr mr = this.<NdkMr>pended((cc, c, o) -> pd.createMr(false, cc, c, o), NdkObjectType.MR);
        this.<NdkMr>pended((cc, c, o) -> pd.createMr(true, cc, c, o), NdkObjectType.MR);
        this.<NdkMw>pended(pd::createMw, NdkObjectType.MW);
        NdkSrq srq = this.<NdkSrq>pended((cc, c, o) -> pd.createSrq(8, 1, 0, null, null, null, cc, c, o), NdkObjectType.SRQ);
        NdkQp qp = this.<NdkQp>pended((cc, c, o) -> pd.createQp(cq, cq, "q1", 4, 4, 1, 1, 0, cc, c, o), NdkObjectType.QP);
        this.<NdkQp>pended((cc, c, o) -> pd.createQpWithSrq(cq, cq, srq, "q2", 4, 1, 0, cc, c, o), NdkObjectType.QP);
        assertThat(mr.version()).isEqualTo(a.version());
        assertThat(qp.receive("r", new io.jndk.api.NdkSge[0], 0)).as("the pended QP is usable").isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    /**
     * NdkCloseAdapter waits until the adapter's objects are closed, and a completion callback runs on a thread those
     * objects need (the dispatcher's, or with {@code notify=inline} the engine thread that completed the request):
     * an adapter close from inside one is refused with IllegalStateException, whichever thread runs it, and the
     * adapter goes on working.
     */
    @ParameterizedTest
    @CsvSource({"dispatcher", "inline"})
    void anAdapterCloseFromInsideACompletionCallbackIsRefused(String notify) {
        NdkAdapter[] self = new NdkAdapter[1];
        java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
        World.Pair p = w.connect(false, 16, 4, 4, Map.of("notify", notify), (ctx, status) -> {
            try {
                self[0].close();
                outcome.set("the close returned");
            } catch (RuntimeException e) {
                outcome.set(e);
            }
        });
        self[0] = p.a.adapter;
        p.a.cq.armCq(NdkCqNotifyType.ANY);
        assertThat(p.a.qp.receive("r", new io.jndk.api.NdkSge[0], 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(p.b.qp.send("s", new io.jndk.api.NdkSge[0], 0, 0)).isEqualTo(NtStatus.STATUS_SUCCESS);
        Kit.awaitTrue("the notification", () -> outcome.get() != null);
        assertThat(outcome.get()).isInstanceOf(IllegalStateException.class);
        assertThat(((Exception) outcome.get()).getMessage()).contains("must not be called from a callback");
        assertThat(Kit.poll(p.a.cq).requestContext).isEqualTo("r");
        assertThat(Kit.poll(p.b.cq).requestContext).isEqualTo("s");
    }
}
