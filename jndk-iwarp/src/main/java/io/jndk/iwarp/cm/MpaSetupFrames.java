package io.jndk.iwarp.cm;

import java.nio.ByteBuffer;

/**
 * The exact octets of the MPA Request and Reply of one connection, as they crossed the wire (for captures: a
 * dissector follows an MPA stream only from its Request and Reply, IWARP.md 8).
 *
 * <p>Both arrays are private copies; the accessors return read-only views.
 */
public final class MpaSetupFrames {

    /** No frames known (a connection set up without recording them). */
    public static final MpaSetupFrames NONE = new MpaSetupFrames(new byte[0], new byte[0]);

    private final byte[] request;
    private final byte[] reply;

    private MpaSetupFrames(byte[] request, byte[] reply) {
        this.request = request;
        this.reply = reply;
    }

    /**
     * Copies {@code length} octets of each frame from absolute indexes of the buffers (positions are not used).
     *
     * @param request buffer holding the Request
     * @param requestIndex index of its first octet
     * @param requestLength its length
     * @param reply buffer holding the Reply
     * @param replyIndex index of its first octet
     * @param replyLength its length
     * @return the copies
     */
    static MpaSetupFrames copy(ByteBuffer request, int requestIndex, int requestLength, ByteBuffer reply,
                               int replyIndex, int replyLength) {
        byte[] q = new byte[requestLength];
        request.get(requestIndex, q);
        byte[] p = new byte[replyLength];
        reply.get(replyIndex, p);
        return new MpaSetupFrames(q, p);
    }

    /** @return the MPA Request (initiator to responder), position 0, read-only; empty if unknown */
    public ByteBuffer request() {
        return ByteBuffer.wrap(request).asReadOnlyBuffer();
    }

    /** @return the MPA Reply (responder to initiator), position 0, read-only; empty if unknown */
    public ByteBuffer reply() {
        return ByteBuffer.wrap(reply).asReadOnlyBuffer();
    }

    /** @return whether both frames are known */
    public boolean known() {
        return request.length > 0 && reply.length > 0;
    }

    @Override
    public String toString() {
        return "MpaSetupFrames[request " + request.length + " octets, reply " + reply.length + " octets]";
    }
}
