package io.jndk.tools.nd;

import io.jndk.tools.kit.Net;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The options and checks the six transfer tools share (NetworkDirect's spelling: {@code -s}/{@code -c}, {@code -b}
 * blocking or {@code -p} polling, {@code -n} SGEs, {@code -q} depth, {@code -l} log, address as the last argument);
 * each tool is a small subclass naming its {@link NdTest}. {@link NdEngine} runs them.
 */
abstract class NdCommand extends NdOptions {
    @Option(names = {"-s", "-S"}, order = 1, description = "Start as server (listen on IP[:PORT], default 0.0.0.0).")
    boolean server;

    @Option(names = {"-c", "-C"}, order = 2, description = "Start as client (connect to the server at IP[:PORT]).")
    boolean client;

    @Option(names = {"-b", "-B"}, order = 3, description = "Blocking I/O: wait for CQ notifications.")
    boolean blocking;

    @Option(names = {"-p", "-P"}, order = 4, description = "Polling I/O: spin on the CQ (default).")
    boolean polling;

    @Option(names = {"-n", "-N"}, order = 5, paramLabel = "nSge", description = "Scatter/gather entries per transfer, 1..16 (default 1).")
    int nSge = 1;

    @Option(names = {"-q", "-Q"}, order = 6, paramLabel = "pipeline", description = "Operations in flight, 1..128 (default 16; the"
            + " ping-pong tools keep one).")
    int depth = 16;

    @Option(names = "--port", order = 9, paramLabel = "PORT", description = "Port (overrides :PORT; 0 with -s picks a free one).")
    Integer port;

    @Option(names = "--bind", order = 9, paramLabel = "IP", description = "Client: the local address to connect from"
            + " (default: the one the route to the server leaves from).")
    String bind;

    @Option(names = "--persistent", order = 12, description = "Server: serve clients one after another until stopped (default: one).")
    boolean persistent;

    @Option(names = "--inject-fault", hidden = true, description = "Server: spoil one octet of what comes back (tests --verify).")
    boolean injectFault;

    @Parameters(arity = "0..1", paramLabel = "IP[:PORT]", description = "Server address (client: required; server: where to"
            + " listen, default 0.0.0.0). The default port is the tool's NetworkDirect one.")
    String target;

    private final NdTest test;

    NdCommand(NdTest test) {
        this.test = test;
    }

    /** Whether {@code -V} was given (the tools with data coming back have it, {@link NdVerifyOption}). */
    boolean verify() {
        return false;
    }

    @Override
    public Integer call() throws Exception {
        validate();
        if (server == client) {
            throw usage("give exactly one of -s (server) and -c (client)");
        }
        if (blocking && polling) {
            throw usage("give at most one of -b (blocking) and -p (polling)");
        }
        if (nSge < 1 || nSge > 16) {
            throw usage("-n must be 1..16");
        }
        if (depth < 1 || depth > 128) {
            throw usage("-q must be 1..128");
        }
        if (client && target == null) {
            throw usage("the client needs the server's address: " + test.tool + " -c IP[:PORT]");
        }
        boolean verify = verify();
        if (verify && server) {
            throw usage("-V is for the client (the data comes back to it)");
        }
        InetSocketAddress at = address();
        try (PrintStream out = output()) {
            NdEngine engine = new NdEngine(test, out, json, blocking, nSge, test.pingPong ? 1 : depth, maxSize, iterations,
                    verify);
            engine.injectFault = injectFault;
            engine.transport = transport;
            engine.bind = bind == null ? null : Net.resolve(bind);
            if (server) {
                engine.serve(at, persistent);
            } else {
                engine.run(at);
            }
        }
        return 0;
    }

    /** The address and port from {@code IP[:PORT]} and {@code --port}. */
    private InetSocketAddress address() {
        String host = target == null ? "0.0.0.0" : target;
        int p = test.defaultPort;
        int colon = host.lastIndexOf(':');
        if (colon > 0 && host.indexOf(':') == colon) {
            try {
                p = Integer.parseInt(host.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw usage("bad port in " + target);
            }
            host = host.substring(0, colon);
        }
        if (port != null) {
            p = port;
        }
        if (p < 0 || p > 65535 || (client && p == 0)) {
            throw usage("bad port " + p);
        }
        return new InetSocketAddress(Net.resolve(host), p);
    }
}
