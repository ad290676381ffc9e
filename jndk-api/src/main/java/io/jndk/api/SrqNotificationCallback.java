package io.jndk.api;

/** {@code NDK_FN_SRQ_NOTIFICATION_CALLBACK}: the SRQ fell below its threshold, or failed. */
@FunctionalInterface
public interface SrqNotificationCallback {
    /**
     * @param srqNotificationContext the context given at SRQ creation
     * @param srqStatus {@code STATUS_SUCCESS} or {@code STATUS_INTERNAL_ERROR}
     */
    void onNotification(Object srqNotificationContext, int srqStatus);
}
