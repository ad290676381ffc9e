/**
 * JDK Flight Recorder events of the provider, all in category {@code jndk}: connection state, QP state, memory
 * registrations and Terminates. Each event class has a static {@code emit}: it returns at once (no allocation)
 * while JFR has never been started in the JVM, and otherwise fills the event only when {@code shouldCommit()}
 * says a recording wants it.
 */
package io.jndk.provider.events;
