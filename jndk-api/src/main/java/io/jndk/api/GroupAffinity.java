package io.jndk.api;

/**
 * {@code GROUP_AFFINITY}: preferred processors for notification callbacks (a hint).
 *
 * @param mask processor mask
 * @param group processor group
 */
public record GroupAffinity(long mask, int group) {}
