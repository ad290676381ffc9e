package io.jndk.tools;

import io.jndk.tools.fault.SoakCommand;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.nd.NdmrlatCommand;
import io.jndk.tools.nd.NdmrrateCommand;
import io.jndk.tools.nd.NdpingCommand;
import io.jndk.tools.nd.NdpingpongCommand;
import io.jndk.tools.nd.NdrpingCommand;
import io.jndk.tools.nd.NdrpingpongCommand;
import io.jndk.tools.nd.NdwpingCommand;
import io.jndk.tools.nd.NdwpingpongCommand;
import io.jndk.tools.perf.PerfCommand;
import io.jndk.tools.perftest.IbReadBwCommand;
import io.jndk.tools.perftest.IbReadLatCommand;
import io.jndk.tools.perftest.IbSendBwCommand;
import io.jndk.tools.perftest.IbSendLatCommand;
import io.jndk.tools.perftest.IbWriteBwCommand;
import io.jndk.tools.perftest.IbWriteLatCommand;
import io.jndk.tools.rping.RpingCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code jndk} command. */
@Command(name = "jndk", mixinStandardHelpOptions = true, version = "jndk 0.1.0",
        description = "A pure-Java NDKPI provider over loopback, iWARP and RoCEv2: tools.",
        subcommands = {PerfCommand.class, RpingCommand.class, IbWriteBwCommand.class, IbReadBwCommand.class,
                IbSendBwCommand.class, IbWriteLatCommand.class, IbReadLatCommand.class, IbSendLatCommand.class,
                InfoCommand.class, StatCommand.class, NdpingCommand.class, NdpingpongCommand.class, NdrpingCommand.class,
                NdrpingpongCommand.class, NdwpingCommand.class, NdwpingpongCommand.class, NdmrlatCommand.class,
                NdmrrateCommand.class, SoakCommand.class},
        footer = {"", "Examples:", "  ./jndk perf              loopback demonstration and benchmark",
                "  ./jndk perf --server     a perf server (client: perf --client 127.0.0.1)",
                "  ./jndk rping -s -a 127.0.0.1   an rping server (Linux rping compatible)",
                "  ./jndk ib_write_bw -R    a perftest server (client: ib_write_bw -R HOST)",
                "  ./jndk ib_send_lat -R    perftest's Send latency server (client: ib_send_lat -R HOST)",
                "  ./jndk info -v           the device as ibv_devinfo -v shows one, and NDK_ADAPTER_INFO",
                "  ./jndk info --json       adapter info as JSON",
                "  ./jndk stat              live counters of every running jndk process",
                "  ./jndk ndpingpong -s 127.0.0.1   NetworkDirect ping-pong server (client: -c)",
                "  ./jndk ndmrlat           memory registration latency per size",
                "  ./jndk soak --duration 60s   verified traffic under injected faults",
                "", "Exit codes (a failure prints one line: what happened, what to check):",
                "  0  success"})
public final class Main implements java.util.concurrent.Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** {@code ./jndk} without a tool: the usage on standard error, and the usage error's status. */
    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        cl.getErr().println("jndk: name a tool (./jndk TOOL --help tells more about one):");
        cl.usage(cl.getErr());
        cl.getErr().flush();
        return Failure.Kind.USAGE.exit;
    }

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with its failure handler and exit-code table. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        String[] footer = cl.getCommandSpec().usageMessage().footer();
        String[] table = Failure.table();
        String[] all = java.util.Arrays.copyOf(footer, footer.length + table.length);
        System.arraycopy(table, 0, all, footer.length, table.length);
        cl.getCommandSpec().usageMessage().footer(all);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            System.out.flush();
            c.getErr().println(Usage.line(ex));
            c.getErr().flush();
            return Failure.Kind.USAGE.exit;
        });
        cl.setExecutionExceptionHandler((ex, c, parse) -> {
            Failure f = Failure.of(ex);
            System.out.flush();
            c.getErr().println("jndk " + c.getCommandName() + ": " + f.getMessage());
            c.getErr().flush();
            return f.exit();
        });
        return cl;
    }
}
