package io.jndk.tools.nd;

import io.jndk.api.Mdl;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkPd;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import picocli.CommandLine.Parameters;

/**
 * What {@code ndmrlat} and {@code ndmrrate} share: a local adapter (no peer), a buffer of the largest size, and the
 * size loop; each tool measures one size.
 */
abstract class NdMrCommand extends NdOptions {
    @Parameters(arity = "0..1", paramLabel = "IP", description = "The adapter's address (default 127.0.0.1).")
    String address = "127.0.0.1";

    NdkPd pd;
    MemorySegment buffer;

    /** The table's columns. */
    abstract NdReport.Column[] columns();

    /** The tool's name (JSON records carry it). */
    abstract String tool();

    /** Measures {@code size} over {@code iters} iterations and prints its row. */
    abstract void measure(NdReport report, int size, int iters);

    @Override
    public Integer call() {
        validate();
        InetAddress at;
        try {
            at = InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new Failure(Failure.Kind.UNREACHABLE, "unknown host " + address + " (give one of this host's IP addresses)");
        }
        NdkAdapter adapter = Session.open(transport, at, java.util.Map.of());
        try (PrintStream out = output(); Arena arena = Arena.ofShared()) {
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            buffer = arena.allocate(maxSize, 4096);
            NdReport report = new NdReport(out, json, tool(), columns());
            report.header("Local memory registration, " + iterations + " iterations per size at most.");
            for (int size = 1; size <= maxSize; size <<= 1) {
                measure(report, size, NdTest.iterations(size, iterations));
            }
        } finally {
            Sync.close(pd);
            adapter.close();
        }
        return 0;
    }

    /** Registers the first {@code size} octets of the buffer on {@code mr}. */
    void register(NdkMr mr, int size) {
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(Mdl.of(buffer.asSlice(0, size)), size, NdkMrFlags.ALLOW_LOCAL_WRITE,
                rc, c));
    }

    void deregister(NdkMr mr) {
        Sync.request("DeregisterMr", mr::deregisterMr);
    }

    NdkMr createMr() {
        return Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
    }
}
