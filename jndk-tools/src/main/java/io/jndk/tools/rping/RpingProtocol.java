package io.jndk.tools.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * What rping puts on the wire, independent of any connection: the 16-octet buffer advertisement every Send carries
 * (address, STag, length; all big-endian), and the ping text the client's source buffer holds.
 */
final class RpingProtocol {
    private RpingProtocol() {}

    /** Length of every rping Send: {@code struct rping_rdma_info}. */
    static final int INFO_LENGTH = 16;
    /** rping's default TCP port. */
    static final int DEFAULT_PORT = 7174;
    /** rping's default ping size. */
    static final int DEFAULT_SIZE = 64;
    /** rping's smallest size: room for the text with the largest ping number and its terminator. */
    static final int MIN_SIZE = 26; // sizeof("2147483647") + sizeof("rdma-ping-%d: ")
    /** rping's largest size (one below its 64 KiB buffer). */
    static final int MAX_SIZE = 65535;

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** A buffer advertisement: the peer may read or write {@code size} octets at {@code address} with {@code stag}. */
    record Info(long address, int stag, int size) {
        /** Writes the 16 octets at the start of {@code seg}. */
        void encode(MemorySegment seg) {
            seg.set(BE_LONG, 0, address);
            seg.set(BE_INT, 8, stag);
            seg.set(BE_INT, 12, size);
        }

        /** Reads the 16 octets at the start of {@code seg}. */
        static Info decode(MemorySegment seg) {
            return new Info(seg.get(BE_LONG, 0), seg.get(BE_INT, 8), seg.get(BE_INT, 12));
        }

        @Override
        public String toString() {
            return String.format("rkey %x addr %x len %d", stag, address, Integer.toUnsignedLong(size));
        }
    }

    /**
     * Fills {@code buf} (its whole length) with ping number {@code ping}: "rdma-ping-N: ", then letters 'A'..'z'
     * cycling from the ping's first letter (which advances by one per ping), and a 0 in the last octet.
     */
    static void fill(MemorySegment buf, int ping) {
        int size = (int) buf.byteSize();
        byte[] head = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(head.length, size - 1);
        MemorySegment.copy(head, 0, buf, ValueLayout.JAVA_BYTE, 0, n);
        int c = 'A' + Math.floorMod(ping, 'z' - 'A' + 1);
        for (int i = head.length; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c == 'z' ? 'A' : c + 1;
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** Length of the C string at the start of {@code buf} (up to the first 0, at most the buffer). */
    static int strlen(MemorySegment buf) {
        long n = buf.byteSize();
        for (long i = 0; i < n; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return (int) i;
            }
        }
        return (int) n;
    }

    /** The C string at the start of {@code buf}, as text. */
    static String text(MemorySegment buf) {
        return new String(buf.asSlice(0, strlen(buf)).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }
}
