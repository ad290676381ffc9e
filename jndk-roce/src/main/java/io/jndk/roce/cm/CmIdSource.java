package io.jndk.roce.cm;

import java.util.random.RandomGenerator;

/**
 * Where a {@link CmAgent} takes its local communication IDs and transaction IDs; injected so tests can reproduce a
 * captured exchange.
 */
public interface CmIdSource {

    /** @return a candidate local communication ID (the agent skips 0 and IDs in use) */
    int nextCommId();

    /**
     * @param localCommId the local communication ID of the connection that starts a transaction (REQ, DREQ)
     * @return its transaction ID
     */
    long transactionId(int localCommId);

    /**
     * IDs shaped as Linux ib_cm makes them: a cyclic counter, stored little-endian in the big-endian field and
     * XORed with a random operand (the captures' IDs 0x0138fbd6, 0x0238fbd6, 0x0338fbd6 follow each other), and
     * the transaction ID {@code (agent << 32) | the communication ID's octets read little-endian} (rping's REQ:
     * comm ID 0x0338fbd6, transaction ID 0x00000002d6fb3803).
     *
     * @param random the source of the operand and the agent number
     * @return the source
     */
    static CmIdSource linuxStyle(RandomGenerator random) {
        int operand = random.nextInt();
        long agent = random.nextInt() & 0xFFFFFFFFL;
        return new CmIdSource() {
            private int counter = random.nextInt(1 << 16);

            @Override
            public int nextCommId() {
                return Integer.reverseBytes(++counter) ^ operand;
            }

            @Override
            public long transactionId(int localCommId) {
                return (agent << 32) | (Integer.reverseBytes(localCommId) & 0xFFFFFFFFL);
            }
        };
    }
}
