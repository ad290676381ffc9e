package io.jndk.provider.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A memory registration changed: register, deregister, fast-register, invalidate. */
@Name("jndk.Registration")
@Label("Memory Registration")
@Category("jndk")
@Description("Memory was registered, deregistered, fast-registered or invalidated")
@StackTrace(false)
public final class RegistrationEvent extends Event {
    /** RegisterMr. */
    public static final String REGISTER = "register";
    /** DeregisterMr. */
    public static final String DEREGISTER = "deregister";
    /** A fast-register work request took effect. */
    public static final String FAST_REGISTER = "fast-register";
    /** A local or remote invalidation took effect. */
    public static final String INVALIDATE = "invalidate";

    @Label("Operation")
    String operation;

    @Label("Length")
    @DataAmount
    long length;

    @Label("Token Index")
    @Description("The token without its 8 key bits")
    int tokenIndex;

    /** Records the event when a recording enables it; {@code length} is -1 when not known. */
    public static void emit(String operation, long length, int token) {
        if (!FlightRecorder.isInitialized()) {
            return; // JFR never started in this JVM: not even the event object
        }
        RegistrationEvent e = new RegistrationEvent();
        if (e.shouldCommit()) {
            e.operation = operation;
            e.length = length;
            e.tokenIndex = token >>> 8;
            e.commit();
        }
    }
}
