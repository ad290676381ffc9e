package io.jndk.roce.transport;

import io.jndk.provider.spi.IncomingRequest;
import io.jndk.provider.spi.PassiveHandler;
import io.jndk.provider.spi.QpPort;
import io.jndk.roce.cm.CmConnection;
import io.jndk.roce.cm.CmState;
import io.jndk.roce.cm.IncomingConnect;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A CM REQ waiting for the passive consumer: its rdma_cm header gives the addresses and ports, the REQ its read
 * limits, and its private data is the 56 octets after the header (IB CM carries no length: a shorter private data
 * arrives padded with zeros, as on every RoCE provider).
 */
final class RoceIncoming implements IncomingRequest {
    final RoceDevice device;
    final CmConnection connection;
    final IncomingConnect connect;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final long acceptTimeoutMillis;

    RoceIncoming(RoceDevice device, CmConnection connection, IncomingConnect connect, long acceptTimeoutMillis) {
        this.acceptTimeoutMillis = acceptTimeoutMillis;
        this.device = device;
        this.connection = connection;
        this.connect = connect;
        this.local = new InetSocketAddress(device.address(), connect.destinationPort());
        InetAddress from;
        try {
            from = InetAddress.getByAddress(connect.sourceAddress());
        } catch (UnknownHostException e) {
            from = RoceDevice.addressOf(connect.peer());
        }
        this.remote = new InetSocketAddress(from, connect.sourcePort());
    }

    @Override
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public byte[] privateData() {
        return connect.privateData();
    }

    @Override
    public int inboundReadLimit() {
        return connect.responderResources();
    }

    @Override
    public int outboundReadLimit() {
        return connect.initiatorDepth();
    }

    @Override
    public void accept(byte[] privateData, int inboundReadLimit, int outboundReadLimit, QpPort qp, PassiveHandler handler) {
        device.execute(() -> device.accept(this, privateData, inboundReadLimit, outboundReadLimit, qp, handler,
            acceptTimeoutMillis));
    }

    @Override
    public void reject(byte[] privateData) {
        device.execute(() -> connection.reject(privateData));
    }

    @Override
    public void refuse() {
        device.execute(() -> {
            if (connection.state() == CmState.REQ_RECEIVED) {
                connection.reject(null);
            } else {
                device.abandon(connection);
            }
        });
    }
}
