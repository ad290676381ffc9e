package io.jndk.roce.rc;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Target memory for responder tests: regions by R_Key, each a heap buffer at a base VA with rights. It remembers
 * every range a {@link #check} granted and records as a violation any read or write outside all of them, so a test
 * can assert that the responder touched nothing it was not granted.
 */
final class TestMemory implements RemoteAccess {

    private record Region(long va, ByteBuffer bytes, boolean read, boolean write) {
    }

    private record Grant(int rkey, long va, long end, Right right) {
    }

    private final Map<Integer, Region> regions = new HashMap<>();
    private final List<Grant> grants = new ArrayList<>();
    final List<String> violations = new ArrayList<>();
    final List<Integer> invalidated = new ArrayList<>();
    long bytesWritten;
    long bytesRead;
    int checks;

    ByteBuffer register(int rkey, long va, int size, boolean read, boolean write) {
        ByteBuffer bytes = ByteBuffer.allocate(size);
        regions.put(rkey, new Region(va, bytes, read, write));
        return bytes;
    }

    ByteBuffer bytes(int rkey) {
        return regions.get(rkey).bytes();
    }

    @Override
    public Result check(int rkey, long virtualAddress, int length, Right right) {
        checks++;
        Region r = regions.get(rkey);
        if (r == null || length <= 0) {
            return Result.REMOTE_ACCESS_ERROR;
        }
        boolean allowed = right == Right.REMOTE_READ ? r.read() : r.write();
        long offset = virtualAddress - r.va();
        if (!allowed || offset < 0 || offset + length > r.bytes().capacity()) {
            return Result.REMOTE_ACCESS_ERROR;
        }
        grants.add(new Grant(rkey, virtualAddress, virtualAddress + length, right));
        return Result.OK;
    }

    private boolean granted(int rkey, long va, int length, Right right) {
        for (Grant g : grants) {
            if (g.rkey() == rkey && g.right() == right && va >= g.va() && va + length <= g.end()) {
                return true;
            }
        }
        return false;
    }

    /** @return the region to touch, or null after recording a violation when no grant covers the range */
    private Region granted(String what, int rkey, long va, int length, Right right) {
        if (!granted(rkey, va, length, right)) {
            violations.add(what + " of " + length + " at 0x" + Long.toHexString(va) + " key " + rkey);
            return null;
        }
        return regions.get(rkey);
    }

    @Override
    public void write(int rkey, long virtualAddress, ByteBuffer src, int srcIndex, int length) {
        Region r = granted("write", rkey, virtualAddress, length, Right.REMOTE_WRITE);
        if (r != null) {
            r.bytes().put((int) (virtualAddress - r.va()), src, srcIndex, length);
            bytesWritten += length;
        }
    }

    @Override
    public void read(int rkey, long virtualAddress, ByteBuffer dst, int dstIndex, int length) {
        Region r = granted("read", rkey, virtualAddress, length, Right.REMOTE_READ);
        if (r != null) {
            dst.put(dstIndex, r.bytes(), (int) (virtualAddress - r.va()), length);
            bytesRead += length;
        }
    }

    @Override
    public Result invalidate(int rkey) {
        if (regions.remove(rkey) == null) {
            return Result.REMOTE_ACCESS_ERROR;
        }
        invalidated.add(rkey);
        grants.removeIf(g -> g.rkey() == rkey);
        return Result.OK;
    }
}
