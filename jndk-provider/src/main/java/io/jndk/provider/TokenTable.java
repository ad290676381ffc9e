package io.jndk.provider;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * The adapter's token (STag) table: a 24-bit index and an 8-bit key. Keys are drawn at random and change on
 * every registration, fast-register and bind, so a stale token fails and keys cannot be predicted from
 * earlier tokens. Every access to registered memory goes through {@link #checkLocal} or {@link #checkRemote}.
 */
final class TokenTable {
    static final int RIGHT_LOCAL_WRITE = 1, RIGHT_REMOTE_READ = 2, RIGHT_REMOTE_WRITE = 4;
    /** Registered with RDMA_READ_SINK: a Read may place into it on an adapter without READ_SINK_NOT_REQUIRED. */
    static final int RIGHT_READ_SINK = 8;
    static final int KIND_MR = 1, KIND_FRMR = 2, KIND_MW = 3, KIND_PRIVILEGED = 4;

    /** What a valid token grants, published as one immutable value. */
    record Binding(int key, long baseVa, long length, int rights, Region region) {}

    /** One table slot, owned by an MR, an MW or a PD (privileged token). */
    static final class Entry {
        final int index;
        final int kind;
        final SoftPd pd;
        /** The MR, MW or PD the slot belongs to (set once the owning object exists, before its token is handed out). */
        volatile Object owner;
        volatile Binding binding;
        /** The key of the token handed out last (may run ahead of {@link #binding} until a WR executes). */
        volatile int issuedKey;

        Entry(int index, int kind, SoftPd pd, Object owner) {
            this.index = index;
            this.kind = kind;
            this.pd = pd;
            this.owner = owner;
        }

        int token(int key) {
            return index << 8 | key;
        }
    }

    /** Outcome of a remote check. */
    static final int OK = 0, INVALID_STAG = 1, BASE_BOUNDS = 2, ACCESS = 3, NOT_ASSOCIATED = 4;

    private volatile Entry[] entries = new Entry[256];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int next = 1;
    private int live;
    private final int max;
    private final SplittableRandom random = new SplittableRandom(new SecureRandom().nextLong());

    TokenTable(int max) {
        this.max = max;
    }

    synchronized Entry allocate(int kind, SoftPd pd, Object owner) {
        if (live >= max || (free.isEmpty() && next >= (1 << 24))) {
            return null;
        }
        int index = free.isEmpty() ? next++ : free.poll();
        if (index >= entries.length) {
            Entry[] n = new Entry[Math.min(1 << 24, entries.length * 2)];
            System.arraycopy(entries, 0, n, 0, entries.length);
            entries = n;
        }
        Entry e = new Entry(index, kind, pd, owner);
        e.issuedKey = newKey(-1);
        entries[index] = e;
        live++;
        return e;
    }

    synchronized void release(Entry e) {
        if (entries[e.index] == e) {
            e.binding = null;
            entries[e.index] = null;
            free.add(e.index);
            live--;
        }
    }

    /** A fresh random key different from {@code previous}. */
    synchronized int newKey(int previous) {
        int k;
        do {
            k = random.nextInt(256);
        } while (k == previous);
        return k;
    }

    Entry lookup(int token) {
        int index = token >>> 8;
        Entry[] e = entries;
        return index < e.length ? e[index] : null;
    }

    /**
     * The one check for a local SGE: token valid, same PD, {@code [va, va+len)} inside the registration, and the
     * registration's rights include {@code need} ({@code RIGHT_*} bits: local write for a receive or Read sink, and
     * the read-sink right for a Read sink when the adapter needs it); the privileged token, which is not a
     * registration, has every local right. Fills {@code out} with the region and offset.
     */
    boolean checkLocal(int token, long va, long len, int need, SoftPd pd, PageMap pages, Target out) {
        Entry e = lookup(token);
        if (e == null || e.pd != pd) {
            return false;
        }
        if (e.kind == KIND_PRIVILEGED) {
            if (token != e.token(e.issuedKey)) {
                return false;
            }
            if (!pages.regionAt(va, len, out.page)) {
                return false;
            }
            out.logical = false;
            out.region = out.page;
            out.offset = 0;
            return true;
        }
        if (e.kind == KIND_MW) {
            return false;
        }
        Binding b = e.binding;
        if (b == null || (token & 0xFF) != b.key()) {
            return false;
        }
        if (!inside(va, len, b)) {
            return false;
        }
        if ((b.rights() & need) != need) {
            return false;
        }
        out.logical = false;
        out.region = b.region();
        out.offset = va - b.baseVa();
        return true;
    }

    /** The one check for an inbound tagged access (RDMA Write target, Read source). */
    int checkRemote(int stag, long to, long len, int right, SoftPd pd, Target out) {
        Entry e = lookup(stag);
        if (e == null || e.kind == KIND_PRIVILEGED) {
            return INVALID_STAG;
        }
        Binding b = e.binding;
        if (b == null || (stag & 0xFF) != b.key()) {
            return INVALID_STAG;
        }
        if (e.pd != pd) {
            return NOT_ASSOCIATED;
        }
        if ((b.rights() & right) == 0) {
            return ACCESS;
        }
        if (!inside(to, len, b)) {
            return BASE_BOUNDS;
        }
        out.logical = false;
        out.region = b.region();
        out.offset = to - b.baseVa();
        return OK;
    }

    private static boolean inside(long va, long len, Binding b) {
        if (len < 0) {
            return false;
        }
        long off = va - b.baseVa();
        // unsigned comparisons: va below the base wraps to a huge offset
        return Long.compareUnsigned(off, b.length()) <= 0 && Long.compareUnsigned(len, b.length() - off) <= 0
                && Long.compareUnsigned(va, b.baseVa()) >= 0;
    }

    synchronized int live() {
        return live;
    }

    /** Result of a successful check: where the bytes are. */
    static final class Target {
        Region region;
        long offset;
        boolean logical;
        final Chunk chunk = new Chunk();
        /** The holder {@link #region} points at for a privileged-token SGE. */
        final PageMap.Pages page = new PageMap.Pages();
    }
}
