/**
 * JDK Flight Recorder events of the provider, all in category {@code jndk}: connection state, QP state, memory
 * registrations and Terminates. Each event class has a static {@code emit} that builds nothing unless a
 * recording has the event enabled.
 */
package io.jndk.provider.events;
