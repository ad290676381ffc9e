package io.jndk.roce.codec;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;

/**
 * The current thread's allocated bytes, read through HotSpot's thread MXBean by reflection (the module does not
 * read {@code jdk.management}), for the no-allocation tests; {@link #open()} skips the test where the JVM does not
 * count.
 */
public final class ThreadAllocations {

    private final Object bean;
    private final Method allocated;

    private ThreadAllocations(Object bean, Method allocated) {
        this.bean = bean;
        this.allocated = allocated;
    }

    /** @return the counter; the calling test is skipped (assumption) when there is none */
    public static ThreadAllocations open() {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
            return new ThreadAllocations(bean, allocated);
        } catch (ReflectiveOperationException | LinkageError e) {
            assumeTrue(false, "no thread allocation counter: " + e);
            throw new AssertionError(e);
        }
    }

    /** @return the bytes this thread has allocated so far */
    public long bytes() {
        try {
            return (long) allocated.invoke(bean);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** @return what one pair of {@link #bytes()} reads costs by itself */
    public long noise() {
        long before = bytes();
        return bytes() - before;
    }
}
