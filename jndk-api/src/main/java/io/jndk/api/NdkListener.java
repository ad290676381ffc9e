package io.jndk.api;

import java.net.InetSocketAddress;

/** {@code NDK_LISTENER}: listens on a local address and reports each request as a new connector. */
public interface NdkListener extends NdkClosable {
    /** {@code NdkListen}. SUCCESS, PENDING, INSUFFICIENT_RESOURCES, SHARING_VIOLATION, INVALID_ADDRESS, TOO_MANY_ADDRESSES. */
    int listen(InetSocketAddress address, RequestCompletion requestCompletion, Object requestContext);

    /** {@code NdkGetListenerLocalAddress}. SUCCESS, BUFFER_TOO_SMALL. */
    int getLocalAddress(Ref<InetSocketAddress> address, IntRef addressLength);

    /** {@code NdkControlConnectEvents}: pause (refuse new requests) or resume. */
    void controlConnectEvents(boolean pause);
}
