package io.jndk.api;

/** An in/out or out {@code ULONG*} parameter, such as {@code pBufferSize} or {@code pFBO}. */
public final class IntRef {
    /** The value. */
    public int value;

    /** A reference holding 0. */
    public IntRef() {}

    /** A reference holding {@code value}. */
    public IntRef(int value) {
        this.value = value;
    }
}
