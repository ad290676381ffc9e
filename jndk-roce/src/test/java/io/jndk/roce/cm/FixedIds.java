package io.jndk.roce.cm;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Communication IDs from a list (then counting up from 0x1000), transaction IDs as ib_cm forms them with a fixed
 * agent number: enough to rebuild a captured exchange field for field.
 */
final class FixedIds implements CmIdSource {

    private final Deque<Integer> commIds = new ArrayDeque<>();
    private final long agent;
    private int next = 0x1000;

    FixedIds(long agent, int... commIds) {
        this.agent = agent;
        for (int id : commIds) {
            this.commIds.add(id);
        }
    }

    @Override
    public int nextCommId() {
        return commIds.isEmpty() ? next++ : commIds.poll();
    }

    @Override
    public long transactionId(int localCommId) {
        return (agent << 32) | (Integer.reverseBytes(localCommId) & 0xFFFFFFFFL);
    }
}
