package io.jndk.api;

/** {@code NDK_FN_CONNECT_EVENT_CALLBACK}: an incoming connection request, as a new connector. */
@FunctionalInterface
public interface ConnectEventCallback {
    /**
     * @param connectEventContext the context given at listener creation
     * @param connector a new passive connector for the request
     */
    void onConnectRequest(Object connectEventContext, NdkConnector connector);
}
