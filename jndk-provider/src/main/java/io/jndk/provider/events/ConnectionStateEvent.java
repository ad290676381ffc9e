package io.jndk.provider.events;

import java.net.InetSocketAddress;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A connector's connection changed state: requested, established, rejected, failed, disconnected. */
@Name("jndk.ConnectionState")
@Label("Connection State")
@Category("jndk")
@Description("A connection was requested, established, rejected, failed or disconnected")
@StackTrace(false)
public final class ConnectionStateEvent extends Event {
    /** Connect was called (active side). */
    public static final String REQUESTED = "requested";
    /** The connection is established (either side). */
    public static final String ESTABLISHED = "established";
    /** The peer rejected the connection (MPA reject). */
    public static final String REJECTED = "rejected";
    /** The attempt failed (refused, unreachable, timed out, aborted). */
    public static final String FAILED = "failed";
    /** An established connection ended. */
    public static final String DISCONNECTED = "disconnected";

    @Label("State")
    String state;

    @Label("Transport")
    String transport;

    @Label("Local Address")
    String localAddress;

    @Label("Remote Address")
    String remoteAddress;

    @Label("Detail")
    @Description("Status or disconnect reason")
    String detail;

    /** Records the event when a recording enables it. */
    public static void emit(String state, String transport, InetSocketAddress local, InetSocketAddress remote,
            String detail) {
        if (!FlightRecorder.isInitialized()) {
            return; // JFR never started in this JVM: not even the event object
        }
        ConnectionStateEvent e = new ConnectionStateEvent();
        if (e.shouldCommit()) {
            e.state = state;
            e.transport = transport;
            e.localAddress = text(local);
            e.remoteAddress = text(remote);
            e.detail = detail;
            e.commit();
        }
    }

    /** {@code address:port} without a host name lookup; null when not known. */
    private static String text(InetSocketAddress a) {
        return a == null ? null : a.getAddress() == null ? a.getHostString() + ":" + a.getPort()
                : a.getAddress().getHostAddress() + ":" + a.getPort();
    }
}
