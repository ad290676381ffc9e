package io.jndk.provider;

import java.lang.foreign.MemorySegment;

/** A contiguous piece of host memory inside a region: a reusable cursor, never allocated per operation. */
final class Chunk {
    MemorySegment segment;
    long offset;
    long length;
}
