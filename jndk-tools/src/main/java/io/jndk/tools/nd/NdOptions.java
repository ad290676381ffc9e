package io.jndk.tools.nd;

import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Transports;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/** Options every ND tool has: the size range, iterations, output form and log file. */
abstract class NdOptions implements Callable<Integer> {
    @Option(names = "--iters", order = 10, paramLabel = "N", description = "Iterations per size at most (default ${DEFAULT-VALUE});"
            + " above 64 KiB fewer: 64 MiB / size.")
    int iterations = NdTest.DEFAULT_ITERATIONS;

    @Option(names = "--max-size", order = 11, paramLabel = "OCTETS", description = "Largest size (default ${DEFAULT-VALUE}: 4 MiB); sizes"
            + " run from 1 octet, doubling.")
    int maxSize = NdTest.MAX_SIZE;

    @Option(names = "--json", order = 8, description = "One JSON object per size instead of the table.")
    boolean json;

    @Option(names = {"-l", "--logFile"}, order = 7, paramLabel = "LOGFILE", description = "Also write the output to LOGFILE.")
    String logFile;

    @Option(names = "--transport", order = 12, paramLabel = "TRANSPORT", defaultValue = "iwarp", description = "iwarp"
            + " (the default) or roce (RoCEv2 over UDP port 4791, one port per address: a client on the server's host"
            + " connects from another address, --bind 127.0.0.2).")
    String transport;

    @Option(names = {"-h", "--help"}, order = 13, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    /** Checks the common options; throws a usage failure. */
    void validate() {
        if (iterations < 1) {
            throw usage("--iters must be at least 1");
        }
        if (maxSize < 1 || maxSize > NdTest.MAX_SIZE) {
            throw usage("--max-size must be 1.." + NdTest.MAX_SIZE);
        }
        Transports.wire(transport);
    }

    static Failure usage(String message) {
        return new Failure(Failure.Kind.USAGE, message);
    }

    /** Standard output, and the log file too with {@code -l}; closing it closes the log file, not standard output. */
    PrintStream output() {
        OutputStream file;
        try {
            file = logFile == null ? OutputStream.nullOutputStream() : new FileOutputStream(logFile);
        } catch (FileNotFoundException e) {
            throw new Failure("cannot write the log file " + logFile + ": " + e.getMessage());
        }
        PrintStream console = System.out;
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                console.write(b);
                file.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                console.write(b, off, len);
                file.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                console.flush();
                file.flush();
            }

            @Override
            public void close() throws IOException {
                console.flush();
                file.close();
            }
        }, true, StandardCharsets.UTF_8);
    }
}
