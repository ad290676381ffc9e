package io.jndk.iwarp.cm;

import io.jndk.iwarp.codec.DdpUntaggedHeaderFlyweight;
import io.jndk.iwarp.codec.FpduEncoder;
import io.jndk.iwarp.codec.MpaFrameCheck;
import io.jndk.iwarp.codec.MpaFrameFlyweight;
import io.jndk.iwarp.codec.MpaFrameKind;
import io.jndk.iwarp.codec.RdmapOpcode;
import io.jndk.iwarp.codec.TerminateCode;
import io.jndk.iwarp.codec.TerminateFlyweight;
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
            if (destination.equals(channel.getLocalAddress())) {
                // TCP's simultaneous open with itself: the kernel picked the destination's own port as the source
                // port of a connect to a local port where nothing listens. Nobody is there (it would read its own
                // MPA Request as the Reply): refused, as it would have been with any other source port.
                return new MpaOutcome.Failed(MpaFailure.REFUSED, "the TCP connection was refused: nothing listens there"
                    + " (the connect reached its own source port, a TCP self-connection)");
            }
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
            MpaFailure reason = MpaIo.classify(phase, e);
            return new MpaOutcome.Failed(reason, explain(reason, phase, e, connectTimeout, replyTimeout));
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
            if (looksLikeTerminate(in)) {
                // the peer's error frame: read its control word (never answer a Terminate with one)
                MpaIo.readAtLeast(channel, in, TERMINATE_CONTROL + TerminateFlyweight.CONTROL_LENGTH, deadline);
                return new MpaOutcome.Failed(MpaFailure.TERMINATED, "the peer answered the MPA Request with a Terminate ("
                    + describeTerminate(in) + ")");
            }
            sendTerminate(channel, TerminateCode.LLP_INVALID_MPA_FRAME, false);
            terminated[0] = true;
            return new MpaOutcome.Failed(MpaFailure.BAD_FRAME, "the peer's answer is not an MPA Reply (wrong key: "
                + printableKey(in) + ")");
        }
        if (check == MpaFrameCheck.BAD_REVISION) {
            return new MpaOutcome.Failed(MpaFailure.BAD_REVISION, "the MPA Reply has revision " + reply.revision()
                + "; this side speaks revision 2 (and accepts 1)");
        }
        int pdLength = reply.privateDataLength();
        if (pdLength > MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW) {
            return new MpaOutcome.Failed(MpaFailure.PRIVATE_DATA_TOO_LONG, "the MPA Reply's private data is "
                + pdLength + " octets long; at most " + MpaFrameFlyweight.MAX_PRIVATE_DATA_SIW + " are allowed");
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
                local, remote), frame.crc() != params.crc());
        }
        if (frame.markers()) {
            return new MpaOutcome.Failed(MpaFailure.MARKERS, "the MPA Reply requires markers (M=1); this side does not"
                + " support markers");
        }
        if (frame.revision() != MpaFrameFlyweight.REVISION_2) {
            return new MpaOutcome.Failed(MpaFailure.BAD_REVISION, "the MPA Reply has revision " + frame.revision()
                + "; an enhanced (revision 2) Request needs a revision 2 Reply");
        }
        if (!frame.enhanced()) {
            return new MpaOutcome.Failed(MpaFailure.BAD_FRAME, "the MPA Reply to an enhanced Request is not enhanced"
                + " (S=0, PD_Length " + pdLength + ")");
        }
        MpaNegotiation.Initiator result = MpaNegotiation.initiate(frame.word(), params);
        if (!result.ok()) {
            sendTerminate(channel, result.failure(), crc);
            terminated[0] = true;
            return new MpaOutcome.Failed(result.failure() == TerminateCode.LLP_INSUFFICIENT_IRD
                ? MpaFailure.INSUFFICIENT_RESOURCES : MpaFailure.NO_MATCHING_RTR, result.detail());
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

    /** Where a Terminate's control word starts in its FPDU: MPA length, then the untagged DDP header. */
    static final int TERMINATE_CONTROL = 2 + DdpUntaggedHeaderFlyweight.LENGTH;

    /**
     * Whether the first {@value MpaFrameFlyweight#HEADER_LENGTH} octets are the start of a Terminate FPDU: untagged,
     * last, DDP version 1, RDMAP version 1, opcode Terminate, queue 2.
     */
    static boolean looksLikeTerminate(ByteBuffer in) {
        int ddp = in.get(2) & 0xFF;
        int rdmap = in.get(3) & 0xFF;
        return (ddp & 0xC0) == 0x40 && (ddp & 0x03) == 1 && (rdmap & 0xC0) == 0x40
            && (rdmap & 0x0F) == RdmapOpcode.TERMINATE.code()
            && in.getInt(2 + DdpUntaggedHeaderFlyweight.QN_OFFSET) == 2;
    }

    /** The Terminate's error, by name when the catalogue knows it. */
    static String describeTerminate(ByteBuffer in) {
        TerminateFlyweight t = new TerminateFlyweight().wrap(in, TERMINATE_CONTROL, TerminateFlyweight.CONTROL_LENGTH);
        TerminateCode code = t.terminateCode();
        String triple = String.format(Locale.ROOT, "layer %d, type %d, code 0x%02X", t.layer(), t.errorType(),
            t.errorCode());
        return code == null ? triple : code.name() + ": " + triple;
    }

    /** The first 16 octets as printable text. */
    private static String printableKey(ByteBuffer in) {
        StringBuilder b = new StringBuilder(18).append('"');
        for (int i = 0; i < 16; i++) {
            int c = in.get(i) & 0xFF;
            b.append(c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        return b.append('"').toString();
    }

    /** One line for an I/O failure of the given phase. */
    private static String explain(MpaFailure reason, MpaIo.Phase phase, IOException e, Duration connectTimeout,
                                  Duration replyTimeout) {
        String cause = MpaIo.describe(e);
        return switch (reason) {
            case TIMEOUT -> phase == MpaIo.Phase.MPA
                ? "no MPA Reply within " + replyTimeout.toMillis() + " ms (TCP connected; " + cause + ")"
                : "the TCP connection did not complete within " + connectTimeout.toMillis() + " ms (" + cause + ")";
            case PEER_CLOSED -> "the peer closed the TCP connection before its MPA Reply was complete (" + cause + ")";
            case REFUSED -> "the TCP connection was refused: nothing listens there (" + cause + ")";
            default -> phase.name().toLowerCase(Locale.ROOT) + ": " + cause;
        };
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
