package io.jndk.api;

/**
 * An out parameter: the Java form of a C {@code T**} such as {@code ppNdkCq}.
 *
 * @param <T> the type of the value
 */
public final class Ref<T> {
    private T value;

    /** An empty reference. */
    public Ref() {}

    /** The value, or null when the provider did not write it. */
    public T get() {
        return value;
    }

    /** Writes the value. */
    public void set(T value) {
        this.value = value;
    }
}
