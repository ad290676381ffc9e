package io.jndk.roce.transport;

import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * One entry of a {@link FrameLink}'s neighbour table: an IPv4 address, its MAC once known, and the frames held for
 * it while an ARP request is outstanding. Created when an address is first seen or first sent to (the
 * {@link InetAddress} and the hold buffers are allocated then, never per packet); reused when the table is full.
 */
final class FrameNeighbour {
    /** The MAC of a neighbour not resolved yet. */
    static final long UNKNOWN = -1L;

    /** The address, the value {@link FrameLink#source()} returns for its packets. */
    InetAddress address;
    /** The address as an int, big-endian. */
    int ipv4;
    /** The MAC in the low 48 bits, or {@link #UNKNOWN}. */
    long mac = UNKNOWN;
    /** When a frame from it or to it last passed (the link's clock), for replacing the least recently used. */
    long lastUsed;
    /** When the current resolution began (the first frame held). */
    long resolveStarted;
    /** When the last ARP request for it left. */
    long lastRequest;
    /** Frames held for it: whole Ethernet frames, destination MAC still zero; the first {@link #heldCount} count. */
    final ByteBuffer[] held;
    final int[] heldLength;
    int heldCount;

    FrameNeighbour(int holdCapacity) {
        this.held = new ByteBuffer[holdCapacity];
        this.heldLength = new int[holdCapacity];
    }

    void reset(InetAddress address, int ipv4, long now) {
        this.address = address;
        this.ipv4 = ipv4;
        this.mac = UNKNOWN;
        this.lastUsed = now;
        this.heldCount = 0;
        this.resolveStarted = 0;
        this.lastRequest = 0;
    }

    /** Copies a frame into the next hold slot; the caller checked there is one. */
    void hold(ByteBuffer frame, int length) {
        int i = heldCount;
        ByteBuffer slot = held[i];
        if (slot == null || slot.capacity() < length) {
            slot = ByteBuffer.allocate(Math.max(length, 2048));
            held[i] = slot;
        }
        slot.clear();
        slot.put(0, frame, 0, length);
        heldLength[i] = length;
        heldCount = i + 1;
    }

    boolean resolved() {
        return mac != UNKNOWN;
    }
}
