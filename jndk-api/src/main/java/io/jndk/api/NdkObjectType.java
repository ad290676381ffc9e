package io.jndk.api;

/** {@code NDK_OBJECT_TYPE} with the exact values of the header. */
public enum NdkObjectType {
    UNDEFINED(0), ADAPTER(1), QP(2), CQ(3), MR(4), MW(5), PD(6), SHARED_ENDPOINT(7), CONNECTOR(8), LISTENER(9), SRQ(10);

    /** The numeric {@code NDK_OBJECT_TYPE} value. */
    public final int value;

    NdkObjectType(int value) {
        this.value = value;
    }

    /** {@code NdkObjectTypeMax}, the sentinel after the last type. */
    public static final int MAX = 11;
}
