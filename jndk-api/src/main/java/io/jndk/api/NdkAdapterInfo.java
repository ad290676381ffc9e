package io.jndk.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@code NDK_ADAPTER_INFO}: the adapter's limits and capabilities, as returned by
 * {@link NdkAdapter#queryAdapterInfo}.
 *
 * @param version negotiated NDKPI version
 * @param vendorId vendor's IEEE OUI
 * @param deviceId vendor-defined device id
 * @param maxRegistrationSize largest single memory registration in bytes
 * @param maxWindowSize largest memory window in bytes
 * @param frmrPageCount preferred fast-register region size in pages (at least 16)
 * @param maxInitiatorRequestSge max SGEs in one initiator request
 * @param maxReceiveRequestSge max SGEs in one receive request
 * @param maxReadRequestSge max SGEs in one RDMA Read
 * @param maxTransferLength max total bytes of one request's SGEs
 * @param maxInlineDataSize max inline bytes in one send or write
 * @param maxInboundReadLimit IRD cap per QP
 * @param maxOutboundReadLimit ORD cap per QP
 * @param maxReceiveQueueDepth max receive queue depth
 * @param maxInitiatorQueueDepth max initiator queue depth
 * @param maxSrqDepth max SRQ depth (0: no SRQ support)
 * @param maxCqDepth max CQ depth
 * @param largeRequestThreshold hint: above this size read/write beats send/receive
 * @param maxCallerData max private data bytes in a connect request
 * @param maxCalleeData max private data bytes in an accept or reject
 * @param adapterFlags {@link NdkAdapterFlags} bits
 * @param rdmaTechnology {@link NdkRdmaTechnology} value
 */
public record NdkAdapterInfo(
        NdkVersion version,
        int vendorId,
        int deviceId,
        long maxRegistrationSize,
        long maxWindowSize,
        int frmrPageCount,
        int maxInitiatorRequestSge,
        int maxReceiveRequestSge,
        int maxReadRequestSge,
        int maxTransferLength,
        int maxInlineDataSize,
        int maxInboundReadLimit,
        int maxOutboundReadLimit,
        int maxReceiveQueueDepth,
        int maxInitiatorQueueDepth,
        int maxSrqDepth,
        int maxCqDepth,
        int largeRequestThreshold,
        int maxCallerData,
        int maxCalleeData,
        int adapterFlags,
        int rdmaTechnology) {

    /** Size of the x64 C structure in bytes. */
    public static final int SIZE_X64 = 0x68;

    /** True when the adapter sets the given {@link NdkAdapterFlags} bit(s). */
    public boolean hasFlag(int flag) {
        return (adapterFlags & flag) == flag;
    }

    /** Writes the x64 byte layout (little-endian) of the structure; {@code dst} needs {@link #SIZE_X64} bytes. */
    public void writeTo(ByteBuffer dst) {
        ByteBuffer b = dst.slice().order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0x00, (short) version.major()).putShort(0x02, (short) version.minor());
        b.putInt(0x04, vendorId).putInt(0x08, deviceId).putInt(0x0C, 0);
        b.putLong(0x10, maxRegistrationSize).putLong(0x18, maxWindowSize);
        b.putInt(0x20, frmrPageCount).putInt(0x24, maxInitiatorRequestSge).putInt(0x28, maxReceiveRequestSge);
        b.putInt(0x2C, maxReadRequestSge).putInt(0x30, maxTransferLength).putInt(0x34, maxInlineDataSize);
        b.putInt(0x38, maxInboundReadLimit).putInt(0x3C, maxOutboundReadLimit).putInt(0x40, maxReceiveQueueDepth);
        b.putInt(0x44, maxInitiatorQueueDepth).putInt(0x48, maxSrqDepth).putInt(0x4C, maxCqDepth);
        b.putInt(0x50, largeRequestThreshold).putInt(0x54, maxCallerData).putInt(0x58, maxCalleeData);
        b.putInt(0x5C, adapterFlags).putInt(0x60, rdmaTechnology).putInt(0x64, 0);
    }
}
