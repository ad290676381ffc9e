package io.jndk.provider;

import io.jndk.api.ConnectFailure;
import io.jndk.api.NtStatus;
import java.net.InetSocketAddress;

/** The connect failures the provider itself finds (a transport reports its own through the SPI's handlers). */
final class ConnectFailures {
    private ConnectFailures() {}

    static ConnectFailure differentFamilies() {
        return new ConnectFailure(NtStatus.STATUS_NETWORK_UNREACHABLE, ConnectFailure.Reason.UNREACHABLE,
            "the source and the destination are of different address families", null);
    }

    /** The 4-tuple is another connection's ({@code STATUS_ADDRESS_ALREADY_EXISTS}). */
    static ConnectFailure tupleInUse(int status) {
        return new ConnectFailure(status, ConnectFailure.Reason.LOCAL,
            "a connection from this local address to that peer exists already", null);
    }

    /** The transport ended the attempt at once with {@code status}. */
    static ConnectFailure atOnce(int status, InetSocketAddress dst) {
        return ConnectFailure.ofStatus(status, status == NtStatus.STATUS_CONNECTION_REFUSED
            ? "nothing listens at " + dst + " (or its listener refuses now: paused, or its backlog is full)"
            : status == NtStatus.STATUS_HOST_UNREACHABLE ? "no adapter of this transport owns " + dst.getAddress()
            : NtStatus.describe(status));
    }

    /** The provider's connect timer ({@code connect.timeout.ms}) ran out. */
    static ConnectFailure timeout(long millis) {
        return new ConnectFailure(NtStatus.STATUS_IO_TIMEOUT, ConnectFailure.Reason.TIMEOUT,
            "no answer within " + millis + " ms", null);
    }
}
