package io.jndk.provider;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapterInfo;
import io.jndk.api.NtStatus;

/**
 * What a connector learns and settles during establishment, and {@code NdkGetConnectionData}'s answer from it: the
 * peer's private data and the read limits, as requested (capped to this adapter) and as negotiated. Owned by one
 * {@link SoftConnector} and guarded by its monitor.
 */
final class ConnectionData {
    private byte[] peerPrivateData;
    private int reqIrd, reqOrd, effIrd, effOrd;

    /**
     * A read limit capped to the adapter's maximum. Both are ULONGs: a limit of 2^31 or more is a large number, capped
     * like any other, never a negative one.
     */
    static int cap(int limit, int max) {
        return Integer.compareUnsigned(limit, max) < 0 ? limit : max;
    }

    /** Active side: the limits this side asks for (the consumer's, capped); nothing heard from the peer yet. */
    void request(int ird, int ord, NdkAdapterInfo info) {
        reqIrd = cap(ird, info.maxInboundReadLimit());
        reqOrd = cap(ord, info.maxOutboundReadLimit());
    }

    /** Active side: the peer's reply settles the limits (each side's inbound limit bounds the other's outbound). */
    void replied(byte[] pd, int peerIrd, int peerOrd) {
        peerPrivateData = pd == null ? new byte[0] : pd;
        effIrd = cap(reqIrd, peerOrd);
        effOrd = cap(reqOrd, peerIrd);
    }

    /** Active side: the peer rejected; its private data stays readable. */
    void rejected(byte[] pd) {
        peerPrivateData = pd == null ? new byte[0] : pd;
    }

    /** Passive side: the request's private data and the limits it asks for, capped to this adapter. */
    void incoming(byte[] pd, int peerIrd, int peerOrd, NdkAdapterInfo info) {
        peerPrivateData = pd == null ? new byte[0] : pd.clone();
        reqIrd = cap(peerOrd, info.maxInboundReadLimit());
        reqOrd = cap(peerIrd, info.maxOutboundReadLimit());
    }

    /** Passive side: the consumer's accept (its limits, capped) settles the limits. */
    void accepted(int myIrd, int myOrd) {
        effIrd = Math.min(myIrd, reqIrd);
        effOrd = Math.min(myOrd, reqOrd);
    }

    int reqIrd() {
        return reqIrd;
    }

    int reqOrd() {
        return reqOrd;
    }

    int effIrd() {
        return effIrd;
    }

    int effOrd() {
        return effOrd;
    }

    /** @return the peer's private data as received (not a copy), or null before any came */
    byte[] peerPrivateData() {
        return peerPrivateData;
    }

    /**
     * {@code NdkGetConnectionData}: fills {@code ird}/{@code ord} (when given; the {@code negotiated} ones, else the
     * requested ones) and copies the peer's private data into {@code buf}: {@code len} says how large the buffer is on
     * entry and how much private data there is on return; a short buffer is {@code STATUS_BUFFER_TOO_SMALL} (with
     * what fits copied), a missing {@code len} {@code STATUS_INVALID_PARAMETER}, no data yet
     * {@code STATUS_CONNECTION_INVALID}.
     */
    int copyOut(boolean negotiated, IntRef ird, IntRef ord, byte[] buf, IntRef len) {
        byte[] data = peerPrivateData;
        if (data == null) {
            return NtStatus.STATUS_CONNECTION_INVALID;
        }
        if (ird != null) {
            ird.value = negotiated ? effIrd : reqIrd;
        }
        if (ord != null) {
            ord.value = negotiated ? effOrd : reqOrd;
        }
        if (len == null) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        long in = Integer.toUnsignedLong(len.value); // *pPrivateDataLength is a ULONG
        len.value = data.length;
        if (buf == null && in == 0) {
            return NtStatus.STATUS_SUCCESS;
        }
        if (buf != null) {
            System.arraycopy(data, 0, buf, 0, (int) Math.min(Math.min(in, data.length), buf.length));
        }
        return in >= data.length ? NtStatus.STATUS_SUCCESS : NtStatus.STATUS_BUFFER_TOO_SMALL;
    }
}
