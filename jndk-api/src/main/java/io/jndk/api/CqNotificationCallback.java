package io.jndk.api;

/** {@code NDK_FN_CQ_NOTIFICATION_CALLBACK}: an arm of the CQ is satisfied; serialized per CQ. */
@FunctionalInterface
public interface CqNotificationCallback {
    /**
     * @param cqNotificationContext the context given at CQ creation
     * @param cqStatus {@code STATUS_SUCCESS}, {@code STATUS_BUFFER_OVERFLOW} (overrun) or {@code STATUS_INTERNAL_ERROR}
     */
    void onNotification(Object cqNotificationContext, int cqStatus);
}
