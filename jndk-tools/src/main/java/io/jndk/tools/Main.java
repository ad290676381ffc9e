package io.jndk.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code jndk} command. */
@Command(name = "jndk", mixinStandardHelpOptions = true, version = "jndk 0.1.0",
        description = "A pure-Java NDKPI provider over loopback and iWARP: tools.",
        subcommands = {PerfCommand.class, RpingCommand.class, IbWriteBwCommand.class, IbReadBwCommand.class,
                IbSendBwCommand.class, InfoCommand.class},
        footer = {"", "Examples:", "  ./jndk perf              loopback demonstration and benchmark",
                "  ./jndk perf --server     serve perf clients in this process (another runs --client 127.0.0.1)",
                "  ./jndk rping -s -a 127.0.0.1   an rping server (Linux rping compatible)",
                "  ./jndk ib_write_bw -R    a perftest-compatible server (client: ./jndk ib_write_bw -R HOST)",
                "  ./jndk info --json       adapter info as JSON"})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Entry point. */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, c, parse) -> {
            System.err.println("jndk " + c.getCommandName() + ": " + ex.getMessage());
            return 2;
        });
        System.exit(cl.execute(args));
    }
}
