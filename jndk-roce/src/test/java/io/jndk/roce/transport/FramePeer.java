package io.jndk.roce.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.LongSupplier;

/**
 * A fake QEMU dgram netdev for the tests: a non-blocking {@link DatagramChannel} on 127.0.0.1 playing the guest's
 * side of the wire, and the {@link FrameLink} under test connected to it. Waits are bounded and use a selector,
 * never a sleep.
 */
final class FramePeer implements AutoCloseable {
    static final InetAddress LINK_IP = ip("192.0.2.1");
    static final InetAddress GUEST_IP = ip("192.0.2.2");
    static final long LINK_MAC = 0x0200_0000_0201L;
    static final long GUEST_MAC = 0x5254_0000_0202L;
    private static final long WAIT_NANOS = 5_000_000_000L;

    final DatagramChannel channel;
    final FrameLink link;
    private final Selector selector;
    private final Selector linkSelector;

    FramePeer(long linkMac, InetAddress linkIp, int hold, LongSupplier clock) throws IOException {
        InetAddress loopback = ip("127.0.0.1");
        channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress(loopback, 0));
        int peerPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        link = new FrameLink(0, peerPort, linkMac, linkIp, FrameLink.DEFAULT_IP_MTU, hold, clock);
        channel.connect(new InetSocketAddress(loopback, link.socketPort()));
        channel.configureBlocking(false);
        selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
        linkSelector = Selector.open();
        link.channel().register(linkSelector, SelectionKey.OP_READ);
    }

    FramePeer() throws IOException {
        this(LINK_MAC, LINK_IP, FrameLink.DEFAULT_HOLD, System::nanoTime);
    }

    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (IOException e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    /** Sends one frame to the link. */
    void send(byte[] frame) throws IOException {
        if (channel.write(ByteBuffer.wrap(frame)) != frame.length) {
            throw new IOException("the peer socket did not take a frame");
        }
    }

    /** @return the next frame the link sent, waiting at most 5 s; null when none came */
    byte[] next() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(70000);
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            b.clear();
            if (channel.read(b) > 0) {
                b.flip();
                byte[] f = new byte[b.remaining()];
                b.get(f);
                return f;
            }
            selector.select(50);
            selector.selectedKeys().clear();
        }
        return null;
    }

    /**
     * Calls {@link FrameLink#receive} until it returns a packet or {@code frames} frames have been accounted for
     * by its counters, waiting at most 5 s.
     *
     * @return the payload's length, or -1 when the frames were all dropped
     */
    int receive(ByteBuffer into, long frames, LongSupplier accounted) throws IOException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < deadline) {
            int n = link.receive(into);
            if (n >= 0) {
                return n;
            }
            if (accounted.getAsLong() >= frames) {
                return -1;
            }
            linkSelector.select(50);
            linkSelector.selectedKeys().clear();
        }
        throw new AssertionError("the link accounted for " + accounted.getAsLong() + " of " + frames + " frames in 5 s");
    }

    /** @return how many arrived frames the link's receive-side counters account for */
    long received() {
        long n = 0;
        for (FrameCounter c : FrameLinkTest.RECEIVE_COUNTERS) {
            n += link.counter(c);
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        selector.close();
        linkSelector.close();
        channel.close();
        link.close();
    }
}
