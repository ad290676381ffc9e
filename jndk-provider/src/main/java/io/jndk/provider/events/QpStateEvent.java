package io.jndk.provider.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A queue pair went to the error state or was closed. */
@Name("jndk.QpState")
@Label("QP State")
@Category("jndk")
@Description("A queue pair went to the error state or was closed")
@StackTrace(false)
public final class QpStateEvent extends Event {
    /** The QP went to error: outstanding requests flush. */
    public static final String ERROR = "error";
    /** The QP was closed. */
    public static final String CLOSED = "closed";

    @Label("QP")
    @Description("The QP's identity within the process")
    String qp;

    @Label("State")
    String state;

    @Label("Reason")
    String reason;

    /** Records the event when a recording enables it. */
    public static void emit(Object qp, String state, String reason) {
        if (!FlightRecorder.isInitialized()) {
            return; // JFR never started in this JVM: not even the event object
        }
        QpStateEvent e = new QpStateEvent();
        if (e.shouldCommit()) {
            e.qp = Integer.toHexString(System.identityHashCode(qp));
            e.state = state;
            e.reason = reason;
            e.commit();
        }
    }
}
