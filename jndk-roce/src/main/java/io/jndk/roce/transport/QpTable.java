package io.jndk.roce.transport;

import java.util.Arrays;

/**
 * A device's QPs by QP number: open addressing over int keys, so that a lookup per arriving packet boxes nothing.
 * Engine thread only.
 */
final class QpTable {
    private int[] keys = new int[64];
    private RoceQp[] values = new RoceQp[64];
    private int size;

    RoceQp get(int qpn) {
        int mask = keys.length - 1;
        for (int i = mix(qpn) & mask;; i = (i + 1) & mask) {
            RoceQp v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == qpn) {
                return v;
            }
        }
    }

    boolean containsKey(int qpn) {
        return get(qpn) != null;
    }

    void put(int qpn, RoceQp q) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(qpn) & mask;; i = (i + 1) & mask) {
            if (values[i] == null) {
                keys[i] = qpn;
                values[i] = q;
                size++;
                return;
            }
            if (keys[i] == qpn) {
                values[i] = q;
                return;
            }
        }
    }

    void remove(int qpn) {
        int mask = keys.length - 1;
        int i = mix(qpn) & mask;
        while (values[i] != null && keys[i] != qpn) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return;
        }
        values[i] = null;
        size--;
        // re-insert the rest of the cluster (backward-shift deletion by re-insertion)
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int k = keys[j];
            RoceQp v = values[j];
            values[j] = null;
            size--;
            put(k, v);
        }
    }

    private void grow() {
        int[] k = keys;
        RoceQp[] v = values;
        keys = new int[k.length * 2];
        values = new RoceQp[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null) {
                put(k[i], v[i]);
            }
        }
    }

    int size() {
        return size;
    }

    void clear() {
        Arrays.fill(values, null);
        size = 0;
    }

    private static int mix(int x) {
        int h = x * 0x9E3779B1;
        return h ^ (h >>> 16);
    }
}
