package io.jndk.iwarp.codec;

import java.nio.charset.StandardCharsets;

/** The two MPA connection-setup frames and their 16-octet ASCII keys (RFC 5044 section 7.1). */
public enum MpaFrameKind {
    /** MPA Request, sent by the initiator: key {@code "MPA ID Req Frame"}. */
    REQUEST("MPA ID Req Frame"),
    /** MPA Reply, sent by the responder: key {@code "MPA ID Rep Frame"}. */
    REPLY("MPA ID Rep Frame");

    private final String key;
    private final byte[] keyBytes;

    MpaFrameKind(String key) {
        this.key = key;
        this.keyBytes = key.getBytes(StandardCharsets.US_ASCII);
    }

    /** @return the key as text, without any terminator */
    public String key() {
        return key;
    }

    /**
     * @param index 0..15
     * @return the key octet at {@code index}
     */
    public byte keyByte(int index) {
        return keyBytes[index];
    }
}
