package io.jndk.api;

/** Arm types of {@link NdkCq#armCq(int)}: {@code NDK_CQ_NOTIFY_*}. */
public final class NdkCqNotifyType {
    private NdkCqNotifyType() {}

    /** CQ-level errors only (overrun, fatal failure). */
    public static final int ERRORS = 0;
    /** The next completion of any kind (and errors). */
    public static final int ANY = 1;
    /** The next solicited receive completion, any error completion, and CQ errors. */
    public static final int SOLICITED = 2;
}
