package io.jndk.api;

import java.net.InetSocketAddress;

/** {@code NDK_SHARED_ENDPOINT}: one local address shared by many outgoing connections. */
public interface NdkSharedEndpoint extends NdkClosable {
    /** {@code NdkGetSharedEndpointLocalAddress}. SUCCESS, BUFFER_TOO_SMALL. */
    int getLocalAddress(Ref<InetSocketAddress> address, IntRef addressLength);
}
