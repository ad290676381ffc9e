package io.jndk.tools.nd;

import io.jndk.api.NdkMr;
import io.jndk.tools.kit.Sync;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code jndk ndmrrate}: memory registration rate: many regions registered, then all deregistered, per size. */
@Command(name = "ndmrrate", sortOptions = false, usageHelpWidth = 110,
        description = {"Memory registration rate: per size, register Iter regions over the same memory, then deregister"
                + " them all (NetworkDirect's ndmrrate, one thread). Local only: no peer, no port."},
        footer = {"", "Examples:", "  ./jndk ndmrrate                   on the adapter at 127.0.0.1",
                "  ./jndk ndmrrate --iters 200 --max-size 65536", "", "Exit codes: see ./jndk --help."})
public final class NdmrrateCommand extends NdMrCommand {
    private static final NdReport.Column[] COLUMNS = {new NdReport.Column("Size", "size", 9, 0),
            new NdReport.Column("Iter", "iter", 9, 0), new NdReport.Column("Register", "register_us", 9, 2),
            new NdReport.Column("Deregister", "deregister_us", 10, 2), new NdReport.Column("CPU", "cpu_pct", 7, 2),
            new NdReport.Column("Regs/Sec", "regs_per_sec", 11, 0)};

    @Override
    NdReport.Column[] columns() {
        return COLUMNS;
    }

    @Override
    String tool() {
        return "ndmrrate";
    }

    @Override
    void measure(NdReport report, int size, int iters) {
        List<NdkMr> mrs = new ArrayList<>(iters);
        try {
            for (int i = 0; i < iters; i++) {
                mrs.add(createMr());
            }
            NdReport.Meter m = new NdReport.Meter(true);
            m.start();
            long t0 = System.nanoTime();
            for (NdkMr mr : mrs) {
                register(mr, size);
            }
            long t1 = System.nanoTime();
            for (NdkMr mr : mrs) {
                deregister(mr);
            }
            m.stop();
            long t2 = System.nanoTime();
            report.row(size, iters, (t1 - t0) / 1e3 / iters, (t2 - t1) / 1e3 / iters, m.cpuPercent(), iters / ((t1 - t0) / 1e9));
        } finally {
            for (NdkMr mr : mrs) {
                Sync.close(mr);
            }
        }
    }
}
