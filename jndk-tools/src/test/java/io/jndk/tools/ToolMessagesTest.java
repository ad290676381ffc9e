package io.jndk.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.tools.kit.Failure;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * What the tools say when something is wrong, run as a user runs them (arguments in; exit status, standard output
 * and the one line on standard error checked): bad arguments, unknown names, taken ports, options that would
 * change nothing, help texts that promise what the tool does not do.
 */
class ToolMessagesTest {
    static final Duration RUN = Duration.ofSeconds(40);

    /** Runs {@code jndk args...} to its end; returns the ended process. */
    static JndkProcess jndk(String... args) throws Exception {
        JndkProcess p = JndkProcess.start(List.of(), args);
        assertThat(p.await(RUN)).as("jndk %s did not end; output:%n%s", String.join(" ", args), p.output()).isNotNull();
        return p;
    }

    /** The process's exit status (it has ended). */
    static int exit(JndkProcess p) throws InterruptedException {
        return p.await(Duration.ofSeconds(1));
    }

    /** stderr's lines (stdout lines removed). */
    static List<String> errLines(JndkProcess p) {
        return p.output().lines().filter(l -> l.startsWith("[stderr] ")).map(l -> l.substring(9)).toList();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void jndkWithoutAToolIsAUsageErrorThatListsTheTools() throws Exception {
        try (JndkProcess p = jndk()) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.stdout()).isEmpty();
            assertThat(errLines(p).getFirst()).startsWith("jndk: name a tool");
            assertThat(p.output()).contains("  perf").contains("  ib_write_lat").contains("Exit codes");
        }
        try (JndkProcess p = jndk("--help")) {
            assertThat(exit(p)).isZero();
            assertThat(p.stdout()).contains("Usage: jndk");
        }
    }

    /** picocli's own phrasing ("Unmatched argument at index 0", "Unknown option:") never reaches the user. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "perf --frobnicate|jndk perf: unknown option '--frobnicate' (./jndk perf --help lists its options)",
            "perf surplus|jndk perf: unexpected argument 'surplus' (./jndk perf --help lists its options)",
            "perf -n x|jndk perf: --iters: 'x' is not a whole number (./jndk perf --help lists its options)",
            "perf -n|jndk perf: --iters needs a value (./jndk perf --help lists its options)",
            "prf|jndk: there is no tool 'prf'; did you mean perf? (./jndk --help lists the tools)",
            "ndping -V -c 127.0.0.1|jndk ndping: unknown option '-V' (./jndk ndping --help lists its options)",
            "ib_write_bw -R --qp|jndk ib_write_bw: --qp needs a value (./jndk ib_write_bw --help lists its options)",
            "stat --count x|jndk stat: --count: 'x' is not a whole number (./jndk stat --help lists its options)"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void badArgumentsAreOneLineInTheToolsWordsAndExitTwo(String args, String line) throws Exception {
        try (JndkProcess p = jndk(args.split(" "))) {
            assertThat(exit(p)).as(p.output()).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.stdout()).isEmpty();
            assertThat(errLines(p)).as(p.output()).containsExactly(line);
        }
    }

    /** Help texts name only files that exist, options their tool accepts, and the exit codes it uses. */
    @Test
    void helpTextsPromiseOnlyWhatTheToolsDo() {
        CommandLine cl = Main.commandLine();
        for (var e : cl.getSubcommands().entrySet()) {
            String help = e.getValue().getUsageMessage();
            assertThat(help).as(e.getKey()).doesNotContain("USER-GUIDE");
            String[] pieces = help.split("docs/");
            for (int i = 1; i < pieces.length; i++) { // each piece after the first starts with a file name
                String name = pieces[i].split("[^A-Za-z0-9_.-]")[0].replaceAll("\\.$", "");
                assertThat(Path.of("..", "docs", name)).as("%s names docs/%s", e.getKey(), name).exists();
            }
        }
        for (String noVerify : List.of("ndping", "ndwping")) {
            assertThat(cl.getSubcommands().get(noVerify).getUsageMessage()).as(noVerify).doesNotContain("-V");
        }
        for (String verify : List.of("ndpingpong", "ndwpingpong", "ndrping", "ndrpingpong")) {
            assertThat(cl.getSubcommands().get(verify).getUsageMessage()).as(verify).contains("-V, --verify");
        }
        String rping = cl.getSubcommands().get("rping").getUsageMessage();
        assertThat(rping).doesNotContain("1 with a one-line reason otherwise").contains("4 nothing listens");
    }

    @Test
    void theUsageLinesOfManyMistakesInOneProcess() {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        assertThat(cl.execute("rping", "-c", "-a")).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(cl.execute("ndpingpong", "-c", "127.0.0.1", "-q", "0")).isEqualTo(Failure.Kind.USAGE.exit);
        assertThat(err.toString()).doesNotContain("Unmatched").doesNotContain("Exception")
                .contains("jndk rping: -a needs a value (./jndk rping --help lists its options)");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void statNamesNoExceptionClassesAndWantsAnIntervalAboveZero() throws Exception {
        try (JndkProcess p = jndk("stat", "--interval", "0")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith("jndk stat: --interval 0")
                    .contains("more than 0");
        }
        try (JndkProcess p = jndk("stat", "--count", "3")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().contains("needs --interval");
        }
        long gone = ProcessHandle.current().pid() + 1_000_000_000L;
        try (JndkProcess p = jndk("stat", Long.toString(gone))) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.OTHER.exit);
            assertThat(errLines(p)).containsExactly("jndk stat: process " + gone + ": no such process (it may have ended)");
        }
        try (JndkProcess p = jndk("stat", Long.toString(ProcessHandle.current().parent().orElseThrow().pid()))) {
            // the test JVM's parent is Maven's JVM or a shell: either way, no "Exception" and no class name
            assertThat(p.output()).doesNotContain("Exception").doesNotContain("com.sun.").doesNotContain("java.");
        }
    }

    /** An unknown host is one class in every tool: 7, "unknown host NAME (check the name, or give an IP address)". */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"perf --client H -s 8", "rping -c -a H -C 1", "ib_write_bw -R H", "ib_write_lat -R H",
            "ndpingpong -c H", "perf --server --bind H"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnknownHostIsUnreachableInEveryTool(String command) throws Exception {
        try (JndkProcess p = jndk(command.replace("H", "no-such-host.invalid").split(" "))) {
            assertThat(exit(p)).as(p.output()).isEqualTo(Failure.Kind.UNREACHABLE.exit);
            assertThat(errLines(p)).as(p.output()).singleElement().asString()
                    .contains("unknown host no-such-host.invalid (check the name, or give an IP address)");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void perftestsBadArgumentsExitTwoAndMinusOStopsAt128() throws Exception {
        try (JndkProcess p = jndk("ib_read_bw", "-R", "-o", "500", "127.0.0.1")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly(" ib_read_bw: -o 500 outside 1..128 (the outstanding reads jndk grants)");
        }
        try (JndkProcess p = jndk("ib_write_bw", "-R", "-s", "0", "127.0.0.1")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith(" ib_write_bw: size 0 outside 1..");
        }
        try (JndkProcess p = jndk("ib_send_lat", "127.0.0.1")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().contains("add -R");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void perfChecksProviderOptionsPcapAndPlotBeforeItRuns(@TempDir Path dir) throws Exception {
        try (JndkProcess p = jndk("perf", "-O", "pol=true", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.stdout()).isEmpty();
            assertThat(errLines(p)).singleElement().asString()
                    .startsWith("jndk perf: unknown provider option -O pol=true; the options are: notify, pend, mbean,");
        }
        try (JndkProcess p = jndk("perf", "--transport", "iwarp", "-O", "poll=yes", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: -O poll=yes: poll takes true or false");
        }
        try (JndkProcess p = jndk("perf", "-O", "poll=true", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().contains("is an iwarp transport option and changes nothing");
        }
        try (JndkProcess p = jndk("perf", "--transport", "roce", "-O", "mss=9000", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: -O mss=9000 is an iwarp transport option and changes"
                    + " nothing on roce (add --transport iwarp, or leave it out)");
        }
        try (JndkProcess p = jndk("perf", "--transport", "iwarp", "-O", "udp.port=5000", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: -O udp.port=5000 is a roce transport option and changes"
                    + " nothing on iwarp (add --transport roce, or leave it out)");
        }
        try (JndkProcess p = jndk("perf", "--transport", "roce", "-O", "mtu=1500", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: -O mtu=1500: mtu takes 0 (from the interface's MTU), 256,"
                    + " 512, 1024, 2048 or 4096");
        }
        try (JndkProcess p = jndk("perf", "--transport", "roce", "-O", "udp.pot=5000", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith("jndk perf: unknown provider option -O udp.pot=5000;")
                    .contains("udp.port, link, mtu, ack.timeout").doesNotContain("mss");
        }
        try (JndkProcess p = jndk("perf", "--transport", "roce", "--crc", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith("jndk perf: --crc asks for MPA CRC32c on iWARP"
                    + " FPDUs, and the roce transport has none");
        }
        try (JndkProcess p = jndk("perf", "--transport", "infiniband", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: unknown --transport infiniband (loopback, iwarp or roce)");
        }
        try (JndkProcess p = jndk("perf", "-O", "limit.qp=0xFFFFFFFF", "-O", "limit.cq=4294967295", "-n", "5", "-s", "8",
                "--op", "write", "--json")) {
            assertThat(exit(p)).as("the largest ULONG is a value; output:%n%s", p.output()).isZero();
        }
        try (JndkProcess p = jndk("perf", "-O", "limit.qp=0x100000000", "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: -O limit.qp=0x100000000: limit.qp takes a whole number from 0"
                    + " to 4294967295 (0xFFFFFFFF), decimal or 0x hexadecimal");
        }
        Path pcap = dir.resolve("x.pcap");
        try (JndkProcess p = jndk("perf", "--pcap", pcap.toString(), "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith("jndk perf: --pcap captures iWARP frames")
                    .contains("add --transport iwarp");
            assertThat(pcap).doesNotExist();
        }
        Path plot = dir.resolve("missing").resolve("p.svg");
        try (JndkProcess p = jndk("perf", "--plot", plot.toString(), "-n", "5", "-s", "8")) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(p.stdout()).as("nothing ran").isEmpty();
            assertThat(errLines(p)).singleElement().asString().contains("--plot " + plot + ": the folder")
                    .contains("does not exist");
        }
        try (JndkProcess p = jndk("perf", "--server", "--port", "0", "--pcap", plot.resolveSibling("x.pcap").toString())) {
            assertThat(exit(p)).isEqualTo(Failure.Kind.USAGE.exit);
            assertThat(errLines(p)).singleElement().asString().startsWith("jndk perf: --pcap " + plot.resolveSibling("x.pcap")
                    + ": the folder ").endsWith("does not exist (create it first, or give another file)");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void perfServerOnATakenPortIsAddressInUseWithASentence() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                JndkProcess p = jndk("perf", "--server", "--port", "" + taken.getLocalPort())) {
            assertThat(exit(p)).as(p.output()).isEqualTo(Failure.Kind.ADDRESS_IN_USE.exit);
            assertThat(errLines(p)).containsExactly("jndk perf: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                    + ": address in use (another server runs there: stop it or pick another port)");
        }
    }
}
