package io.jndk.tools.nd;

import io.jndk.api.NdkMr;
import io.jndk.tools.kit.Sync;
import picocli.CommandLine.Command;

/** {@code jndk ndmrlat}: memory registration and deregistration latency per size, on one region, local only. */
@Command(name = "ndmrlat", sortOptions = false, usageHelpWidth = 110,
        description = {"Memory registration latency: Register then Deregister one region, per size from 1 octet to 4 MiB"
                + " (NetworkDirect's ndmrlat). Local only: no peer, no port."},
        footer = {"", "Examples:", "  ./jndk ndmrlat                    on the adapter at 127.0.0.1",
                "  ./jndk ndmrlat --iters 100 --json", "", "Exit codes: see ./jndk --help."})
public final class NdmrlatCommand extends NdMrCommand {
    private static final NdReport.Column[] COLUMNS = {new NdReport.Column("Size", "size", 9, 0),
            new NdReport.Column("Iter", "iter", 9, 0), new NdReport.Column("Register", "register_us", 9, 2),
            new NdReport.Column("Deregister", "deregister_us", 10, 2), new NdReport.Column("CPU", "cpu_pct", 7, 2)};

    @Override
    NdReport.Column[] columns() {
        return COLUMNS;
    }

    @Override
    String tool() {
        return "ndmrlat";
    }

    @Override
    void measure(NdReport report, int size, int iters) {
        NdkMr mr = createMr();
        try {
            long reg = 0;
            long dereg = 0;
            NdReport.Meter m = new NdReport.Meter(true);
            m.start();
            for (int i = 0; i < iters; i++) {
                long t0 = System.nanoTime();
                register(mr, size);
                long t1 = System.nanoTime();
                deregister(mr);
                dereg += System.nanoTime() - t1;
                reg += t1 - t0;
            }
            m.stop();
            report.row(size, iters, reg / 1e3 / iters, dereg / 1e3 / iters, m.cpuPercent());
        } finally {
            Sync.close(mr);
        }
    }
}
