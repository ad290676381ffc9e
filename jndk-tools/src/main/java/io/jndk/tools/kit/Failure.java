package io.jndk.tools.kit;

import io.jndk.api.ConnectFailure;
import io.jndk.api.IntRef;
import io.jndk.api.NdkConnector;
import io.jndk.api.NtStatus;
import java.util.concurrent.TimeoutException;

/**
 * A tool failure people can act on: its message is the one line to print (what happened, then what to check) and its
 * {@link Kind} is the process exit status. {@link #of(Throwable)} classifies anything else a tool throws.
 */
public final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The classes of failure, each with its own exit status (docs/USAGE.md, "Exit codes", lists them). */
    public enum Kind {
        /** Another I/O or provider error. */
        OTHER(1, "other I/O or provider error"),
        /** Bad arguments (picocli's own status for them). */
        USAGE(2, "usage error: bad or missing arguments"),
        /** No JDK 25 for the launcher (set by scripts/jdk.sh, listed here for the table). */
        NO_JDK(3, "JDK 25 not found, or the tools jar could not be built (the ./jndk launcher)"),
        /** Nothing listens at the address and port. */
        REFUSED(4, "connection refused: nothing listens at that address and port"),
        /** The peer answered and rejected the connection (its private data, if any, is in the message). */
        REJECTED(5, "the peer rejected the connection"),
        /** The local address and port are taken. */
        ADDRESS_IN_USE(6, "address in use: another process listens on that port"),
        /** No route, host or network unreachable, or no answer in time. */
        UNREACHABLE(7, "no route, unreachable, or no answer in time"),
        /** TCP connected but MPA negotiation (versions, CRC, IRD/ORD) failed. */
        MPA(8, "MPA negotiation failed"),
        /** The data that arrived is not the data that was sent. */
        VERIFY(9, "data verification failed");

        /** The process exit status. */
        public final int exit;
        /** One line for the exit-code table. */
        public final String meaning;

        Kind(int exit, String meaning) {
            this.exit = exit;
            this.meaning = meaning;
        }
    }

    private final Kind kind;

    /** A failure of {@code kind} with the line to print. */
    public Failure(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** An {@link Kind#OTHER} failure with the line to print. */
    public Failure(String message) {
        this(Kind.OTHER, message);
    }

    /** Its class. */
    public Kind kind() {
        return kind;
    }

    /** The exit status for this failure. */
    public int exit() {
        return kind.exit;
    }

    /**
     * A failed connection attempt to {@code at} ("host:port") with status {@code status}; {@code peerData} is the
     * peer's private data (printable text, or null when none came), which turns a refusal into a rejection.
     */
    public static Failure connect(String at, int status, String peerData, String serverHint) {
        String hint = serverHint == null ? "" : "; " + serverHint;
        if (peerData != null && !peerData.isEmpty()) {
            return new Failure(Kind.REJECTED, "the server at " + at + " rejected the connection: " + peerData);
        }
        return switch (status) {
            case NtStatus.STATUS_CONNECTION_REFUSED -> new Failure(Kind.REFUSED, "cannot connect to " + at
                    + ": connection refused (nothing listens there, or it refused without a reason: check the address"
                    + " and port" + hint + ")");
            case NtStatus.STATUS_IO_TIMEOUT -> new Failure(Kind.UNREACHABLE, "cannot connect to " + at
                    + ": no answer in time (check that the host is up, that a firewall lets the port through, and that"
                    + " the server speaks iWARP/MPA)");
            case NtStatus.STATUS_HOST_UNREACHABLE, NtStatus.STATUS_NETWORK_UNREACHABLE -> new Failure(Kind.UNREACHABLE,
                    "cannot connect to " + at + ": " + (status == NtStatus.STATUS_HOST_UNREACHABLE ? "host" : "network")
                            + " unreachable (check the address and the route to it: ip route get ADDR)");
            case NtStatus.STATUS_INSUFFICIENT_RESOURCES, NtStatus.STATUS_REQUEST_NOT_ACCEPTED -> new Failure(Kind.MPA,
                    "cannot connect to " + at + ": MPA negotiation failed (" + NtStatus.describe(status)
                            + "): the peer would not grant the RDMA Read depths asked for, or speaks another MPA"
                            + " revision; check both sides' options");
            case NtStatus.STATUS_CONNECTION_ABORTED, NtStatus.STATUS_CONNECTION_RESET -> new Failure(Kind.MPA,
                    "cannot connect to " + at + ": the peer closed the connection during MPA negotiation (is it an"
                            + " iWARP/MPA endpoint? do both sides agree on --crc and markers?)");
            default -> new Failure(Kind.OTHER, "cannot connect to " + at + ": " + NtStatus.describe(status));
        };
    }

    /**
     * A failed connection attempt of {@code conn} to {@code at} ("host:port") with status {@code status}: the line names
     * the reason the provider gives beside the status ({@link NdkConnector#connectFailure()}: a rejection and its
     * private data, no listener, a timeout, or which part of the MPA negotiation failed), and the exit status follows
     * it (a rejection 5, nothing listening 4, no answer 7, an MPA mismatch 8). Without a reason it is
     * {@link #connect(String, int, String, String)}.
     */
    public static Failure connect(String at, NdkConnector conn, int status, String serverHint) {
        ConnectFailure why = conn == null ? null : conn.connectFailure().orElse(null);
        if (why == null || why.status() != status) {
            return connect(at, status, conn == null ? null : peerText(conn), serverHint);
        }
        String to = "cannot connect to " + at + ": ";
        String detail = why.detail();
        String hint = serverHint == null ? "" : "; " + serverHint;
        return switch (why.reason()) {
            case REJECTED -> {
                byte[] data = why.privateData();
                String text = printable(data, data.length);
                yield new Failure(Kind.REJECTED, "the server at " + at + " rejected the connection"
                        + (text != null ? ": " + text : " (it gave no reason)"));
            }
            case NO_LISTENER -> new Failure(Kind.REFUSED, to + "connection refused (nothing listens there: check the"
                    + " address and port" + hint + ")");
            case TIMEOUT -> new Failure(Kind.UNREACHABLE, to + "no answer in time (" + detail + "; check that the host"
                    + " is up, that a firewall lets the port through, and that the server speaks iWARP/MPA)");
            case UNREACHABLE -> connect(at, status, null, serverHint);
            case PEER_CLOSED -> new Failure(Kind.MPA, to + "the peer closed the connection during MPA negotiation ("
                    + detail + "; is it an iWARP/MPA endpoint? is its listener paused or full?)");
            case PEER_TERMINATED -> new Failure(Kind.MPA, to + "the peer ended the MPA negotiation with an error: "
                    + detail);
            case VERSION_MISMATCH -> new Failure(Kind.MPA, to + "the peer speaks another MPA revision: " + detail);
            case CRC_MISMATCH -> new Failure(Kind.MPA, to + "the peer and this side disagree on MPA CRCs: " + detail
                    + " (run both sides with the same --crc setting)");
            case FRAMING_MISMATCH -> new Failure(Kind.MPA, to + "the peer needs MPA markers, which jndk does not"
                    + " support: " + detail);
            case STARTUP_MISMATCH -> new Failure(Kind.MPA, to + "no common way to start the connection: " + detail);
            case PRIVATE_DATA_TOO_LONG -> new Failure(Kind.MPA, to + "the peer's answer carries too much private data: "
                    + detail);
            case PROTOCOL_ERROR -> new Failure(Kind.MPA, to + "the peer's answer is not valid MPA: " + detail
                    + " (is it an iWARP/MPA endpoint?)");
            case READ_LIMITS -> new Failure(Kind.MPA, to + "MPA negotiation failed: the peer needs more RDMA Read"
                    + " resources than this side grants (" + detail + ")");
            case LOCAL -> new Failure(Kind.OTHER, to + detail + " (" + NtStatus.describe(status) + ")");
        };
    }

    /** The private data {@code conn}'s peer sent with its answer, as one printable line, or null. */
    private static String peerText(NdkConnector conn) {
        byte[] data = new byte[256];
        IntRef length = new IntRef(data.length);
        return conn.getConnectionData(null, null, data, length) == NtStatus.STATUS_SUCCESS
                ? printable(data, length.value) : null;
    }

    /** A failed Listen on {@code at} ("host:port") with status {@code status}. */
    public static Failure listen(String at, int status) {
        if (status == NtStatus.STATUS_ADDRESS_ALREADY_EXISTS || status == NtStatus.STATUS_SHARING_VIOLATION) {
            return new Failure(Kind.ADDRESS_IN_USE, "cannot listen on " + at
                    + ": address in use (another server runs there: stop it or pick another port)");
        }
        if (status == NtStatus.STATUS_INVALID_ADDRESS) {
            return new Failure(Kind.UNREACHABLE, "cannot listen on " + at
                    + ": the address is not one of this host's (check ip -brief address)");
        }
        return new Failure(Kind.OTHER, "cannot listen on " + at + ": " + NtStatus.describe(status));
    }

    /** The peer's private data as one printable line, or null when there is none. */
    public static String printable(byte[] data, int length) {
        if (data == null || length <= 0) {
            return null;
        }
        int n = Math.min(length, data.length);
        while (n > 0 && data[n - 1] == 0) {
            n--; // trailing padding
        }
        if (n == 0) {
            return null;
        }
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int c = data[i] & 0xFF;
            b.append(c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        return b.toString();
    }

    /** Classifies anything a tool threw; the message is the one line to print. */
    public static Failure of(Throwable t) {
        if (t instanceof Failure f) {
            return f;
        }
        if (t instanceof Sync.NdkException e) {
            return new Failure(switch (e.status) {
                case NtStatus.STATUS_ADDRESS_ALREADY_EXISTS, NtStatus.STATUS_SHARING_VIOLATION -> Kind.ADDRESS_IN_USE;
                case NtStatus.STATUS_CONNECTION_REFUSED -> Kind.REFUSED;
                case NtStatus.STATUS_IO_TIMEOUT, NtStatus.STATUS_HOST_UNREACHABLE, NtStatus.STATUS_NETWORK_UNREACHABLE ->
                        Kind.UNREACHABLE;
                default -> Kind.OTHER;
            }, e.getMessage());
        }
        if (t instanceof IllegalArgumentException) {
            return new Failure(Kind.USAGE, t.getMessage() != null ? t.getMessage() : t.toString());
        }
        if (t.getCause() instanceof TimeoutException) {
            return new Failure(Kind.UNREACHABLE, t.getMessage() + " (is the peer still running? check its output)");
        }
        String m = t.getMessage();
        return new Failure(Kind.OTHER, m != null && !m.isBlank() ? m : t.toString());
    }

    /** The exit-code table, one line per class (for help footers). */
    public static String[] table() {
        Kind[] ks = Kind.values();
        String[] lines = new String[ks.length];
        for (int i = 0; i < ks.length; i++) {
            lines[i] = String.format("  %d  %s", ks[i].exit, ks[i].meaning);
        }
        java.util.Arrays.sort(lines);
        return lines;
    }
}
