package io.jndk.tools.kit;

import io.jndk.api.Mdl;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMrFlags;
import io.jndk.api.NdkPd;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.List;

/** Registered memory for the tools: whole-segment regions, and reading a byte a peer Writes into. */
public final class Memory {
    private Memory() {}

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    /** Registers a whole segment for local and remote access; the region is added to {@code owned}. */
    public static NdkMr register(NdkPd pd, MemorySegment seg, List<NdkMr> owned) {
        NdkMr mr = Sync.create("CreateMr", (cc, c, o) -> pd.createMr(false, cc, c, o));
        owned.add(mr);
        Sync.request("RegisterMr", (rc, c) -> mr.registerMr(Mdl.of(seg), seg.byteSize(),
                NdkMrFlags.ALLOW_LOCAL_WRITE | NdkMrFlags.ALLOW_REMOTE_READ | NdkMrFlags.ALLOW_REMOTE_WRITE, rc, c));
        return mr;
    }

    /** A byte read with acquire semantics: the last byte of a buffer a peer Writes into, polled for arrival. */
    public static byte byteAcquire(MemorySegment seg, long offset) {
        return (byte) BYTE.getAcquire(seg, offset);
    }
}
