package io.jndk.provider;

import io.jndk.api.IntRef;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkSharedEndpoint;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetSocketAddress;

/** An explicit local address shared by many outgoing connections. */
final class SoftSharedEndpoint extends SoftObject implements NdkSharedEndpoint {
    private InetSocketAddress bound;

    SoftSharedEndpoint(SoftAdapter adapter) {
        super(adapter, NdkObjectType.SHARED_ENDPOINT);
    }

    int bind(InetSocketAddress addr) {
        InetSocketAddress[] out = new InetSocketAddress[1];
        int s = adapter.endpoints().bind(adapter, addr, true, out);
        if (s == NtStatus.STATUS_SUCCESS) {
            bound = out[0];
        }
        return s;
    }

    InetSocketAddress bound() {
        return bound;
    }

    @Override
    public int getLocalAddress(Ref<InetSocketAddress> address, IntRef length) {
        return Endpoints.copyAddress(bound, address, length);
    }

    @Override
    void onClose() {}

    @Override
    void onClosed() {
        adapter.endpoints().release(bound);
    }
}
