package io.jndk.tools.rping;

import io.jndk.api.IntRef;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkConnector;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.tools.kit.CaptureOption;
import io.jndk.tools.kit.Failure;
import io.jndk.tools.kit.Listening;
import io.jndk.tools.kit.Net;
import io.jndk.tools.kit.ProviderOptions;
import io.jndk.tools.kit.Session;
import io.jndk.tools.kit.Sync;
import io.jndk.tools.kit.Transports;
import io.jndk.tools.rping.RpingProtocol.Info;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code jndk rping}: Linux rping's ping-pong over the iwarp transport (or, with {@code --transport roce}, RoCEv2),
 * message for message, so that either side can be a Linux rping (siw; rxe for roce) and the other jndk. Each ping: the client Sends the address, STag and length of its source
 * buffer; the server RDMA-Reads it and Sends 16 zero octets; the client Sends its sink buffer's; the server
 * RDMA-Writes the ping back into it and Sends 16 zero octets again. IRD/ORD 1/1, no private data.
 */
@Command(name = "rping", sortOptions = false, separator = " ",
        description = {"RDMA ping-pong compatible with Linux rping (rdma-core) on the wire, over iwarp (or roce).",
                "Each ping: the client advertises its source buffer, the server RDMA-Reads it, then RDMA-Writes it back"
                        + " into the client's sink buffer; three 16-octet Sends carry the buffer advertisements and go-aheads."},
        footer = {"", "Exit status: 0 when every ping (and with -V every byte) went through; otherwise",
                "one line says why and the status is its class (./jndk --help): 2 bad arguments,",
                "4 nothing listens, 5 rejected, 7 unreachable or no answer, 8 MPA failed,",
                "9 -V found other data than was sent, 1 anything else.", "", "Examples:",
                "  ./jndk rping -s -a 127.0.0.1 -v              one client on 127.0.0.1:7174",
                "  ./jndk rping -c -a 127.0.0.1 -C 10 -S 1024 -V  ten verified pings",
                "  ./jndk rping -s -a 127.0.0.1 -P --crc        clients one after another",
                "  ./jndk rping -s -a 127.0.0.1 --transport roce                      RoCEv2 server",
                "  ./jndk rping -c -a 127.0.0.1 -I 127.0.0.2 --transport roce -C 10 -V   (one UDP 4791 per address)"})
public final class RpingCommand implements Callable<Integer> {
    @Option(names = "-s", description = "Server side.")
    boolean server;

    @Option(names = "-c", description = "Client side.")
    boolean client;

    @Option(names = "-a", paramLabel = "ADDR",
            description = "Address: the server listens on it (default 0.0.0.0), the client connects to it (required).")
    String address;

    @Option(names = "-I", paramLabel = "ADDR",
            description = "Client: local address to connect from (default: the one the route to -a leaves from).")
    String source;

    @Option(names = "-p", paramLabel = "PORT", defaultValue = "" + RpingProtocol.DEFAULT_PORT,
            description = "Port (default ${DEFAULT-VALUE}; 0 with -s picks a free one, shown with -d).")
    int port;

    @Option(names = "-C", paramLabel = "COUNT", defaultValue = "0",
            description = "Client: number of pings (default 0: until the server goes). The server serves until the client leaves.")
    int count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "" + RpingProtocol.DEFAULT_SIZE,
            description = "Ping data size in octets, " + RpingProtocol.MIN_SIZE + " to " + RpingProtocol.MAX_SIZE
                    + " (default ${DEFAULT-VALUE}); the server's must not be smaller than the client's.")
    int size;

    @Option(names = "-v", description = "Print the ping data (client: 'ping data: ...', server: 'server ping data: ...').")
    boolean verbose;

    @Option(names = "-V", description = "Client: compare the data written back with the data sent, every ping.")
    boolean validate;

    @Option(names = "-P", description = "Persistent server: serve clients (each its own connection) until stopped.")
    boolean persistent;

    @Option(names = "-d", description = "Debug output (each step, and 'listening on ADDR:PORT' when the server is ready).")
    boolean debug;

    @Option(names = "-q", description = "Use a self-created, self-modified QP: accepted; with NDK the program always creates"
            + " its QP and hands it to the connector, which moves it through its states, so nothing changes.")
    boolean selfCreatedQp;

    @Option(names = "-t", paramLabel = "TOS", description = "Type of service 0..255, as rping's: checked and not applied"
            + " (the transports set no IP type of service), which one line on stderr says.")
    Integer tos;

    @Option(names = "--crc", description = "Ask for MPA CRC32c on every FPDU (on when either side asks; iwarp).")
    boolean crc;

    @Option(names = "--transport", paramLabel = "TRANSPORT", defaultValue = "iwarp", description = "iwarp (MPA over"
            + " TCP, the default) or roce (RoCEv2 over UDP port 4791: one port per address, so a client on the server's"
            + " host connects from another address, -I 127.0.0.2).")
    String transport;

    @Mixin
    CaptureOption capture;

    @Option(names = {"-O", "--option"}, paramLabel = "KEY=VALUE", description = "Provider option, repeatable, checked"
            + " before the run (docs/TRANSPORTS.md; e.g. -O link=dgram:24793:24792 for a QEMU guest).")
    Map<String, String> providerOptions = new java.util.LinkedHashMap<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    @Override
    public Integer call() throws Exception {
        if (server == client) {
            err.println("rping: give exactly one of -s (server) and -c (client)");
            return 2;
        }
        if (size < RpingProtocol.MIN_SIZE || size > RpingProtocol.MAX_SIZE) {
            err.println("rping: Invalid size " + size + " (valid range is " + RpingProtocol.MIN_SIZE + " to "
                    + RpingProtocol.MAX_SIZE + ")");
            return 2;
        }
        if (count < 0) {
            err.println("rping: Invalid count " + count);
            return 2;
        }
        if (port < 0 || port > 65535 || (client && port == 0)) {
            err.println("rping: Invalid port " + port);
            return 2;
        }
        if (client && address == null) {
            err.println("rping: the client needs -a ADDR (the server's address)");
            return 2;
        }
        if (persistent && client) {
            err.println("rping: -P is for the server");
            return 2;
        }
        if (tos != null && (tos < 0 || tos > 255)) {
            err.println("rping: Invalid tos " + tos + " (valid range is 0 to 255)");
            return 2;
        }
        if (!Transports.WIRE.contains(transport)) {
            err.println("rping: unknown --transport " + transport + " (iwarp or roce)");
            return 2;
        }
        String iwarpOnly = Transports.iwarpOnly(transport, crc, capture.file());
        if (iwarpOnly != null) {
            err.println("rping: " + iwarpOnly);
            return 2;
        }
        try {
            ProviderOptions.check(providerOptions, transport);
        } catch (IllegalArgumentException e) {
            err.println("rping: " + e.getMessage());
            return 2;
        }
        if (tos != null) {
            err.println("rping: -t " + tos + " is not applied: the " + transport + " transport sets no IP type of service");
        }
        if (selfCreatedQp) {
            debug("self-created QP (as always with NDK)");
        }
        return server ? runServer() : runClient();
    }

    private static InetAddress resolve(String name) {
        return Net.resolve(name);
    }

    private void debug(String line) {
        if (debug) {
            out.println(line);
            out.flush();
        }
    }

    // ---------------------------------------------------------------- client

    private int runClient() {
        NdkAdapter adapter = null;
        NdkPd pd = null;
        RpingSession s = null;
        try {
            InetAddress dst = resolve(address);
            InetAddress local;
            try {
                local = source != null ? resolve(source) : Net.localAddressFor(dst);
            } catch (IOException e) {
                throw new Failure("no local address reaches " + address + " (" + e.getMessage() + ")");
            }
            Map<String, String> opts = Session.options(crc, capture.file(), providerOptions);
            if (transport.equals("iwarp")) {
                opts.put("mpa.timeout.ms", "10000"); // siw's own wait for an MPA Reply
            }
            adapter = Session.open(transport, local, opts);
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            debug("created pd");
            s = new RpingSession(adapter, pd, size, false, out, debug);
            s.postReceive();
            connect(adapter, s, local, new InetSocketAddress(dst, port));
            int pings = ping(s);
            NdkConnector conn = s.session().connection();
            Sync.get(Sync.start((rc, c) -> conn.disconnect(rc, c)), "Disconnect"); // a peer already gone is fine
            debug(String.format(java.util.Locale.ROOT, "client: %d pings of %d octets", pings, size));
            return 0;
        } catch (Failure | Sync.NdkException | IllegalStateException e) {
            out.flush();
            err.println("rping: client: " + e.getMessage());
            return Failure.of(e).exit();
        } finally {
            if (s != null) {
                s.close();
            }
            Sync.close(pd);
            if (adapter != null) {
                adapter.close();
            }
        }
    }

    private void connect(NdkAdapter adapter, RpingSession s, InetAddress local, InetSocketAddress to) {
        String at = address + ":" + port;
        NdkConnector conn = s.session().connector();
        CompletableFuture<Integer> f = Sync.start((rc, c) -> conn.connect(s.qp, new InetSocketAddress(local, 0), to, 1, 1, null,
                rc, c));
        int st;
        try {
            st = f.get(15, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw Failure.connect(at, NtStatus.STATUS_IO_TIMEOUT, null, null);
        } catch (Exception e) {
            throw new Failure("cannot connect to " + at + ": " + e);
        }
        if (st != NtStatus.STATUS_SUCCESS) {
            throw Failure.connect(at, conn, st, "start the server first: ./jndk rping -s -a ADDR");
        }
        debug("CONNECT_RESPONSE");
        Sync.request("CompleteConnect", (rc, c) -> conn.completeConnect(x -> s.onDisconnect(), null, rc, c));
        debug("ESTABLISHED");
        debug("rdma_connect successful");
    }

    /** The client's ping loop; returns the number of pings done. */
    private int ping(RpingSession s) {
        int ping = 0;
        for (; count == 0 || ping < count; ping++) {
            RpingProtocol.fill(s.startBuf, ping);
            advertise(s, new Info(s.startBuf.address(), s.startMr.getRemoteToken(), size));
            if (s.expect(NdkOperationType.RECEIVE, "RDMA_WRITE_ADV") == null) {
                return endedByServer(ping);
            }
            s.postReceive();
            s.rdmaBuf.fill((byte) 0);
            advertise(s, new Info(s.rdmaBuf.address(), s.rdmaMr.getRemoteToken(), size));
            if (s.expect(NdkOperationType.RECEIVE, "RDMA_WRITE_COMPLETE") == null) {
                return endedByServer(ping);
            }
            s.postReceive();
            if (validate) {
                long at = s.startBuf.mismatch(s.rdmaBuf);
                if (at != -1) {
                    throw new Failure(Failure.Kind.VERIFY, String.format(java.util.Locale.ROOT,
                            "data mismatch! ping %d: octet %d of %d is 0x%02x, sent 0x%02x", ping, at, size,
                            s.rdmaBuf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) & 0xFF,
                            s.startBuf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at) & 0xFF));
                }
            }
            if (verbose) {
                out.println("ping data: " + RpingProtocol.text(s.rdmaBuf));
                out.flush();
            }
        }
        return ping;
    }

    private int endedByServer(int ping) {
        err.println("client DISCONNECT EVENT...");
        if (count == 0) {
            return ping; // unlimited pings end when the server goes, as with rping
        }
        throw new Failure("the server disconnected after " + ping + " of " + count + " pings");
    }

    private void advertise(RpingSession s, Info info) {
        info.encode(s.sendBuf);
        s.debug("RDMA addr %x rkey %x len %d", info.address(), info.stag(), info.size());
        s.postSend();
    }

    // ---------------------------------------------------------------- server

    private int runServer() throws InterruptedException {
        NdkAdapter adapter = null;
        NdkPd pd = null;
        Listening listener = null;
        try {
            InetAddress at = resolve(address == null ? "0.0.0.0" : address);
            adapter = Session.open(transport, at, Session.options(crc, capture.file(), providerOptions));
            NdkAdapter a = adapter;
            pd = Sync.create("CreatePd", a::createPd);
            debug("created pd");
            listener = new Listening(a);
            listener.listen(new InetSocketAddress(at, port));
            InetSocketAddress where = listener.bound();
            debug("rdma_bind_addr successful");
            debug("rdma_listen");
            debug("listening on " + where.getAddress().getHostAddress() + ":" + where.getPort());
            if (!persistent) {
                return serve(a, pd, listener.take());
            }
            NdkPd p = pd;
            while (true) {
                NdkConnector conn = listener.take();
                Thread.ofVirtual().name("rping server").start(() -> serve(a, p, conn));
            }
        } catch (Failure | Sync.NdkException | IllegalStateException e) {
            out.flush();
            err.println("rping: server: " + e.getMessage());
            return Failure.of(e).exit();
        } finally {
            if (listener != null) {
                listener.close();
            }
            Sync.close(pd);
            if (adapter != null) {
                adapter.close();
            }
        }
    }

    /** Serves one client until it disconnects: 0, or 1 after printing why not. */
    private int serve(NdkAdapter adapter, NdkPd pd, NdkConnector conn) {
        Ref<InetSocketAddress> peer = new Ref<>();
        String who = conn.getPeerAddress(peer, new IntRef(28)) == NtStatus.STATUS_SUCCESS
                ? peer.get().getAddress().getHostAddress() + ":" + peer.get().getPort() : "client";
        debug("connect request from " + who);
        RpingSession s = null;
        int pings = 0;
        long octets = 0;
        try {
            s = new RpingSession(adapter, pd, size, true, out, debug);
            s.session().adopt(conn);
            s.postReceive(); // before the Reply: the client Sends as soon as it is connected
            RpingSession s0 = s;
            s.debug("accepting client connection request");
            Sync.request("Accept", (rc, c) -> conn.accept(s0.qp, 1, 1, null, x -> s0.onDisconnect(), null, rc, c));
            while (true) {
                NdkResultEx r = s.expect(NdkOperationType.RECEIVE, "RDMA_READ_ADV");
                if (r == null) {
                    break;
                }
                Info src = Info.decode(s.recvBuf);
                s.postReceive();
                s.debug("Received %s from peer", src);
                s.debug("server received sink adv");
                if (src.size() < 1 || src.size() > size) {
                    throw new Failure("the client's ping data (" + Integer.toUnsignedString(src.size())
                            + " octets) does not fit this server's -S " + size);
                }
                s.postRead(src, src.size());
                s.debug("server posted rdma read req ");
                if (s.expect(NdkOperationType.READ, "RDMA_READ_COMPLETE") == null) {
                    break;
                }
                s.debug("server received read complete");
                if (verbose) {
                    out.println("server ping data: " + RpingProtocol.text(s.rdmaBuf));
                    out.flush();
                }
                s.postSend(); // 16 zero octets: go ahead
                s.debug("server posted go ahead");
                if (s.expect(NdkOperationType.RECEIVE, "RDMA_WRITE_ADV") == null) {
                    break;
                }
                Info sink = Info.decode(s.recvBuf);
                s.postReceive();
                s.debug("Received %s from peer", sink);
                s.debug("server received sink adv");
                int length = Math.min(RpingProtocol.strlen(s.rdmaBuf) + 1, size);
                s.postWrite(sink, length);
                if (s.expect(NdkOperationType.WRITE, "RDMA_WRITE_COMPLETE") == null) {
                    break;
                }
                s.debug("server rdma write complete ");
                s.postSend();
                s.debug("server posted go ahead");
                pings++;
                octets += src.size() + length;
            }
            err.println("server DISCONNECT EVENT...");
            debug(String.format(java.util.Locale.ROOT, "server: %s: %d pings, %d octets read and written", who, pings, octets));
            return 0;
        } catch (Failure | Sync.NdkException | IllegalStateException e) {
            out.flush();
            err.println("rping: server: " + who + " after " + pings + " pings: " + e.getMessage());
            if (s == null) {
                conn.reject(null);
                Sync.close(conn);
            }
            return 1;
        } finally {
            if (s != null) {
                s.close();
            }
        }
    }
}
