package io.jndk.provider.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** An iWARP Terminate was sent or received (on the loopback transport: the equivalent error). */
@Name("jndk.Terminate")
@Label("Terminate")
@Category("jndk")
@Description("A Terminate was sent or received")
@StackTrace(false)
public final class TerminateEvent extends Event {
    @Label("Sent")
    @Description("True when this side detected the error and sent the Terminate")
    boolean sent;

    @Label("Layer")
    @Description("RDMAP, DDP or LLP (MPA)")
    String layer;

    @Label("Error Type")
    int errorType;

    @Label("Error Code")
    int errorCode;

    @Label("QP")
    @Description("The QP's identity within the process")
    String qp;

    /** Records the event when a recording enables it. */
    public static void emit(boolean sent, String layer, int errorType, int errorCode, Object qp) {
        if (!FlightRecorder.isInitialized()) {
            return; // JFR never started in this JVM: not even the event object
        }
        TerminateEvent e = new TerminateEvent();
        if (e.shouldCommit()) {
            e.sent = sent;
            e.layer = layer;
            e.errorType = errorType;
            e.errorCode = errorCode;
            e.qp = Integer.toHexString(System.identityHashCode(qp));
            e.commit();
        }
    }
}
