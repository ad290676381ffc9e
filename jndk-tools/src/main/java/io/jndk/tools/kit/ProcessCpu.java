package io.jndk.tools.kit;

/**
 * The CPU time this process has used so far (user and system, all threads), the figure behind every CPU-per-GB row:
 * perf's and the NIO and UDP baselines' read it the same way, so that their rows compare like with like.
 */
public final class ProcessCpu {
    private ProcessCpu() {}

    /** @return seconds of CPU time used by this process so far; NaN where the platform does not say */
    public static double seconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }
}
