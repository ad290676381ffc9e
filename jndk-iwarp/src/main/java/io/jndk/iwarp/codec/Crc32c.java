package io.jndk.iwarp.codec;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** CRC-32C helpers over absolute buffer ranges that leave the buffer's position and limit as they were. */
final class Crc32c {

    private Crc32c() {
    }

    static void update(CRC32C crc, ByteBuffer buffer, int index, int length) {
        if (length <= 0) {
            return;
        }
        if (buffer.hasArray()) {
            crc.update(buffer.array(), buffer.arrayOffset() + index, length);
            return;
        }
        int position = buffer.position();
        int limit = buffer.limit();
        try {
            buffer.limit(index + length).position(index);
            crc.update(buffer);
        } finally {
            buffer.limit(limit).position(position);
        }
    }
}
