package io.jndk.tools.kit;

/** The post/reap loops the measuring tools share. */
public final class Loops {
    private Loops() {}

    /** The ping-pong tag of round {@code i}: never 0 (buffers start cleared), different from the previous one. */
    public static byte tag(long i) {
        return (byte) (i % 255 + 1);
    }
}
