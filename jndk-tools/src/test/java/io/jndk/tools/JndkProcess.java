package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@code jndk} command in its own JVM (this test JVM's java and class path), optionally under a command prefix
 * such as {@code ip netns exec NS}. Output lines are collected as they come; every wait has a deadline.
 */
final class JndkProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer all = new StringBuffer();
    private final StringBuffer stdout = new StringBuffer();
    private final Thread outReader;
    private final Thread errReader;

    private JndkProcess(Process process) {
        this.process = process;
        this.outReader = Thread.ofPlatform().daemon().start(() -> pump(process.getInputStream(), true));
        this.errReader = Thread.ofPlatform().daemon().start(() -> pump(process.getErrorStream(), false));
    }

    /** Starts {@code prefix... java -cp CP io.jndk.tools.Main args...}. */
    static JndkProcess start(List<String> prefix, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        return new JndkProcess(new ProcessBuilder(cmd).start());
    }

    /** Runs {@code jndk args...} to its end within {@code timeout}, asserts exit status 0, returns its output. */
    static String run(Duration timeout, String... args) throws IOException, InterruptedException {
        try (JndkProcess p = start(List.of(), args)) {
            assertThat(p.await(timeout)).as("exit of jndk %s; output:%n%s",
                    String.join(" ", args), p.output()).isEqualTo(0);
            return p.output();
        }
    }

    private void pump(InputStream in, boolean stdout) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                all.append(stdout ? "" : "[stderr] ").append(line).append('\n');
                if (stdout) {
                    this.stdout.append(line).append('\n');
                    lines.add(line);
                }
            }
        } catch (IOException e) {
            all.append("[output lost: ").append(e).append("]\n");
        }
    }

    /** The next stdout line, or {@code null} when none came within {@code timeout} or the stream ended. */
    String nextLine(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String l = lines.poll(100, TimeUnit.MILLISECONDS);
            if (l != null) {
                return l;
            }
            if (!process.isAlive() && !outReader.isAlive() && lines.isEmpty()) {
                return null;
            }
        }
        return null;
    }

    /** Exit status, or {@code null} when the process did not end within {@code timeout} (it is then killed). */
    Integer await(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            return null;
        }
        outReader.join(2_000);
        errReader.join(2_000);
        return process.exitValue();
    }

    /** The process id. */
    long pid() {
        return process.pid();
    }

    /** Everything the process printed so far (stderr lines marked). */
    String output() {
        return all.toString();
    }

    /** What the process printed on stdout so far (nothing of stderr). */
    String stdout() {
        return stdout.toString();
    }

    /** Kills the process and waits for its end (bounded). */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
