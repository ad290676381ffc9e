package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.MpaFrameCheck;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.TerminateCode;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The active side of MPA connection setup (IWARP.md 1.1): TCP connect, MPA Request (revision 2,
 * S = 1, IRD/ORD word, private data), then the full MPA Reply, validated and negotiated.
 *
 * <p>{@link #connect} blocks the calling thread (run it on a virtual thread) and interrupting that
 * thread cancels it ({@link MpaFailure#CANCELLED}). It never throws for network conditions and never
 * leaves a socket open unless it returns {@link MpaOutcome.Accepted}.
 *
 * <p>Nothing is sent after the Request until the whole Reply has arrived. Reply checks, as siw's
 * initiator: exact key, revision 1 or 2, PD_Length at most 256, R = 1 is a reject carrying the
 * responder's private data, M = 1 fails, and since the Request is enhanced the Reply must be revision
 * 2 with S = 1. Octets that arrive behind the Reply are FPDUs and are handed over in
 * {@link MpaOutcome.Accepted#surplus()}. When negotiation fails after a valid Reply, the RFC 6581
 * Terminate (insufficient IRD, no matching RTR) is sent before closing; a Reply with a wrong key gets
 * the "invalid MPA frame" Terminate, as siw sends it.
 */
public final class MpaInitiator {

    /** Receive buffer for the Reply: the largest acceptable Reply plus room for FPDUs behind it. */
    static final int REPLY_BUFFER = 4096;

    private MpaInitiator() {
    }

    /**
     * Connects with the timeouts of {@code params}.
     *
     * @param source local address to bind (port 0 = ephemeral), or {@code null} for any
     * @param destination the responder
     * @param params this side's parameters
     * @return the outcome
     */
    public static MpaOutcome connect(InetSocketAddress source, InetSocketAddress destination, MpaParams params) {
        return connect(source, destination, params, params.connectTimeout(), params.mpaTimeout());
    }

    /**
     * Connects and runs the MPA exchange.
     *
     * @param source local address to bind (port 0 = ephemeral), or {@code null} for any
     * @param destination the responder
     * @param params this side's parameters
     * @param connectTimeout bound on the TCP connect
     * @param replyTimeout bound on the wait for the complete MPA Reply after the Request was sent
     * @return the outcome
     */
    public static MpaOutcome connect(InetSocketAddress source, InetSocketAddress destination, MpaParams params,
                                     Duration connectTimeout, Duration replyTimeout) {
        return connect(source, destination, params, connectTimeout, replyTimeout, false);
    }

    /**
     * Connects and runs the MPA exchange, optionally sharing the source address with other sockets.
     *
     * @param source local address to bind (port 0 = ephemeral), or {@code null} for any
     * @param destination the responder
     * @param params this side's parameters
     * @param connectTimeout bound on the TCP connect
     * @param replyTimeout bound on the wait for the complete MPA Reply after the Request was sent
     * @param reuseAddress set SO_REUSEADDR before binding {@code source} (a shared local endpoint)
     * @return the outcome
     */
    public static MpaOutcome connect(InetSocketAddress source, InetSocketAddress destination, MpaParams params,
                                     Duration connectTimeout, Duration replyTimeout, boolean reuseAddress) {
        return connect(source, destination, params, connectTimeout, replyTimeout, reuseAddress, SocketBuffers.SYSTEM);
    }

    /**
     * Connects and runs the MPA exchange with the given socket buffer sizes (set before the TCP connect).
     *
     * @param buffers {@code SO_SNDBUF}/{@code SO_RCVBUF} of the connection's socket
     * @see #connect(InetSocketAddress, InetSocketAddress, MpaParams, Duration, Duration, boolean)
     */
    public static MpaOutcome connect(InetSocketAddress source, InetSocketAddress destination, MpaParams params,
                                     Duration connectTimeout, Duration replyTimeout, boolean reuseAddress,
                                     SocketBuffers buffers) {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(replyTimeout, "replyTimeout");
        if (destination.isUnresolved() || (source != null && source.isUnresolved())) {
            return new MpaOutcome.Failed(MpaFailure.INVALID_ADDRESS, "unresolved address");
        }
        SocketChannel channel = null;
        boolean handedOver = false;
        MpaIo.Phase phase = MpaIo.Phase.BIND;
        try {
            channel = SocketChannel.open(destination.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            buffers.apply(channel);
            if (source != null) {
                if (reuseAddress) {
                    channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                }
                channel.bind(source);
            }
            phase = MpaIo.Phase.CONNECT;
            channel.socket().connect(destination, MpaIo.millis(connectTimeout));
            phase = MpaIo.Phase.MPA;
            long deadline = MpaIo.deadline(replyTimeout);
            MpaFrames.Word offered = new MpaFrames.Word(params.peerToPeer(),
                params.peerToPeer() ? params.rtrTypes() : Set.of(), params.ird(), params.ord());
            ByteBuffer request = MpaFrames.encode(MpaFrameKind.REQUEST, MpaFrameFlyweight.REVISION_2,
                params.crc(), false, offered, params.privateDataUnsafe());
            MpaIo.writeFully(channel, request);
            boolean[] terminated = {false};
            MpaOutcome outcome = readReply(channel, params, deadline, request, terminated);
            // after a Terminate the channel closes once the peer has read it (sendTerminate)
            handedOver = outcome instanceof MpaOutcome.Accepted || terminated[0];
            return outcome;
        } catch (UnresolvedAddressException | UnsupportedAddressTypeException e) {
            return new MpaOutcome.Failed(MpaFailure.INVALID_ADDRESS, MpaIo.describe(e));
        } catch (IOException e) {
            return new MpaOutcome.Failed(MpaIo.classify(phase, e), phase.name().toLowerCase(Locale.ROOT) + ": "
                + MpaIo.describe(e));
        } finally {
            if (!handedOver) {
                MpaIo.closeQuietly(channel);
            }
        }
    }

    /** @param terminated set when a Terminate was sent (the channel then closes on its own, after a linger) */
    private static MpaOutcome readReply(SocketChannel channel, MpaParams params, long deadline, ByteBuffer request,
                                        boolean[] terminated) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(REPLY_BUFFER);
        MpaIo.readAtLeast(channel, in, MpaFrameFlyweight.HEADER_LENGTH, deadline);
        MpaFrameFlyweight reply = new MpaFrameFlyweight().wrap(in, 0);
        MpaFrameCheck check = reply.validate(MpaFrameKind.REPLY);
        if (check == MpaFrameCheck.BAD_KEY) {
            sendTerminate(channel, TerminateCode.LLP_INVALID_MPA_FRAME, false);
            terminated[0] = true;
            return refused("MPA Reply with a wrong key");
        }
        if (check == MpaFrameCheck.BAD_REVISION) {
            return refused("MPA Reply revision " + reply.revision());
        }
        int pdLength = reply.privateDataLength();
        if (pdLength > MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW) {
            return refused("MPA Reply PD_Length " + pdLength + " > " + MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW);
        }
        int frameLength = reply.frameLength();
        MpaIo.readAtLeast(channel, in, frameLength, deadline);
        MpaFrames.Frame frame = MpaFrames.parse(in);
        InetSocketAddress local = (InetSocketAddress) channel.getLocalAddress();
        InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
        boolean crc = params.crc() || frame.crc();
        int peerIrd = frame.enhanced() ? frame.word().ird() : MpaNegotiated.UNKNOWN;
        int peerOrd = frame.enhanced() ? frame.word().ord() : MpaNegotiated.UNKNOWN;
        if (frame.reject()) {
            return new MpaOutcome.Rejected(new MpaNegotiated(MpaRole.INITIATOR, frame.revision(), frame.enhanced(), crc,
                params.ird(), params.ord(), peerIrd, peerOrd, false, Optional.empty(), frame.ulpData(), true,
                local, remote));
        }
        if (frame.markers()) {
            return refused("MPA Reply requires markers (M = 1); markers are not supported");
        }
        if (frame.revision() != MpaFrameFlyweight.REVISION_2 || !frame.enhanced()) {
            return refused("MPA Reply to an enhanced Request is not enhanced (revision " + frame.revision()
                + ", S=" + reply.enhanced() + ", PD_Length " + pdLength + ")");
        }
        MpaNegotiation.Initiator result = MpaNegotiation.initiate(frame.word(), params);
        if (!result.ok()) {
            sendTerminate(channel, result.failure(), crc);
            terminated[0] = true;
            return new MpaOutcome.Failed(result.failure() == TerminateCode.LLP_INSUFFICIENT_IRD
                ? MpaFailure.INSUFFICIENT_RESOURCES : MpaFailure.REFUSED, result.detail());
        }
        int surplusLength = in.position() - frameLength;
        ByteBuffer surplus = ByteBuffer.allocate(surplusLength);
        surplus.put(0, in, frameLength, surplusLength);
        MpaNegotiated negotiated = new MpaNegotiated(MpaRole.INITIATOR, frame.revision(), true, crc,
            result.ird(), result.ord(), peerIrd, peerOrd, params.peerToPeer(), result.rtr(), frame.ulpData(), false,
            local, remote);
        return new MpaOutcome.Accepted(negotiated, channel, surplus,
            MpaSetupFrames.copy(request, 0, request.limit(), in, 0, frameLength));
    }

    private static MpaOutcome refused(String detail) {
        return new MpaOutcome.Failed(MpaFailure.REFUSED, detail);
    }

    /**
     * Sends the Terminate, then closes in order ({@link MpaIo#closeAfterLinger}: the half-close, the drain, the close);
     * best effort, since the connection is being abandoned anyway.
     */
    static void sendTerminate(SocketChannel channel, TerminateCode code, boolean crc) {
        ByteBuffer t = ByteBuffer.allocate(64);
        int n = new FpduEncoder(crc).terminate(t, 0, 1, code, false, 0, null, 0, 0);
        t.limit(n);
        try {
            MpaIo.writeFully(channel, t);
        } catch (IOException | RuntimeException ignored) {
            // the peer may be gone already
        }
        MpaIo.closeAfterLinger(channel);
    }

}
