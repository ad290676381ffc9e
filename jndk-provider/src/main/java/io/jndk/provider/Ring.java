package io.jndk.provider;

/** A fixed ring of preallocated {@link WorkRequest} slots (FIFO); callers synchronize. */
final class Ring {
    private WorkRequest[] slots;
    private int head;
    private int count;
    private int capacity;

    Ring(int capacity, int maxSge, int inlineSize) {
        this.capacity = capacity;
        slots = new WorkRequest[Math.max(1, capacity)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new WorkRequest(maxSge, inlineSize);
        }
    }

    int size() {
        return count;
    }

    int capacity() {
        return capacity;
    }

    boolean full() {
        return count >= capacity;
    }

    /** The slot the next {@link #commit()} publishes. */
    WorkRequest tail() {
        return slots[(head + count) % slots.length];
    }

    void commit() {
        count++;
    }

    WorkRequest peek(int i) {
        return slots[(head + i) % slots.length];
    }

    WorkRequest poll() {
        if (count == 0) {
            return null;
        }
        WorkRequest w = slots[head];
        head = (head + 1) % slots.length;
        count--;
        return w;
    }
}
