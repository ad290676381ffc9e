package io.jndk.iwarp.transport;

import io.jndk.iwarp.pcap.PcapWriter;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The capture of one connection's FPDU stream (the adapter's {@code pcap} option), in the directions of this side:
 * what was read ({@link #inbound}), what was written ({@link #outbound}), and each side's FIN. Without a capture the
 * engine holds {@link #NONE}, whose calls do nothing, so the engine has no capture checks of its own.
 *
 * <p>Thread-safe as {@link PcapWriter.TcpStream} is: the receive side records what it read, the transmit side (the
 * thread holding the transmit side) what it wrote, any closing thread this side's FIN (once).
 */
final class ConnectionCapture {
    /** No capture. */
    static final ConnectionCapture NONE = new ConnectionCapture(null, false);

    private final PcapWriter.TcpStream stream;
    /** Whether this side is the initiator (the capture's directions are initiator and responder). */
    private final boolean active;
    private final AtomicBoolean localFin = new AtomicBoolean();

    private ConnectionCapture(PcapWriter.TcpStream stream, boolean active) {
        this.stream = stream;
        this.active = active;
    }

    /** @return a capture into {@code stream}, or {@link #NONE} when it is {@code null} */
    static ConnectionCapture of(PcapWriter.TcpStream stream, boolean active) {
        return stream == null ? NONE : new ConnectionCapture(stream, active);
    }

    /** Octets read from the peer: {@code length} from absolute index {@code index} of {@code data}. */
    void inbound(ByteBuffer data, int index, int length) {
        if (stream != null) {
            stream.record(!active, data, index, length);
        }
    }

    /** Octets read straight into memory: the first {@code count} views, from position to limit (empty ones end it). */
    void inbound(ByteBuffer[] views, int count) {
        if (stream != null) {
            for (int i = 0; i < count && views[i].hasRemaining(); i++) {
                stream.record(!active, views[i], views[i].position(), views[i].remaining());
            }
        }
    }

    /** Octets written to the peer: {@code length} from absolute index {@code index} of {@code data}. */
    void outbound(ByteBuffer data, int index, int length) {
        if (stream != null) {
            stream.record(active, data, index, length);
        }
    }

    /** A gathering write: the first {@code count} buffers of {@code gather}, each from position to limit. */
    void outbound(ByteBuffer[] gather, int count) {
        if (stream != null) {
            for (int i = 0; i < count; i++) {
                ByteBuffer b = gather[i];
                stream.record(active, b, b.position(), b.remaining());
            }
        }
    }

    /** The peer's FIN (the end of the stream was read). */
    void peerFin() {
        if (stream != null) {
            stream.fin(!active);
        }
    }

    /** This side's FIN (output shut or channel closed), recorded once. */
    void localFin() {
        if (stream != null && localFin.compareAndSet(false, true)) {
            stream.fin(active);
        }
    }
}
