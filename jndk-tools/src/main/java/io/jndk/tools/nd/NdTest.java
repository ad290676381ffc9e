package io.jndk.tools.nd;

/**
 * The six NetworkDirect-style transfer tests: the operation, one way (pipelined) or ping-pong, the wire id carried in
 * the client's request and NetworkDirect's default port for the program that ran that operation.
 */
enum NdTest {
    /** Send/Receive one way, up to {@code -q} Sends in flight, the server returning receive credits. */
    PING("ndping", 1, 54324, Op.SEND, false),
    /** Send/Receive ping-pong: the server Sends each message straight back. */
    PINGPONG("ndpingpong", 2, 54325, Op.SEND, true),
    /** RDMA Read from the server's buffer, up to {@code -q} Reads in flight (bounded by the negotiated ORD). */
    RPING("ndrping", 3, 54326, Op.READ, false),
    /** RDMA Read, one at a time: each Read is a round trip. */
    RPINGPONG("ndrpingpong", 4, 54327, Op.READ, true),
    /** RDMA Write into the server's buffer, up to {@code -q} Writes in flight. */
    WPING("ndwping", 5, 54326, Op.WRITE, false),
    /** RDMA Write ping-pong: each side Writes the data, then Sends a 4-octet notice the other side waits for. */
    WPINGPONG("ndwpingpong", 6, 54327, Op.WRITE, true);

    /** The transfer operation. */
    enum Op { SEND, READ, WRITE }

    /** Sizes run from 1 octet to this, doubling. */
    static final int MAX_SIZE = 4 << 20;
    /** Default cap on iterations per size. */
    static final int DEFAULT_ITERATIONS = 1000;
    /** Octets moved per size at most (one way): bigger sizes run fewer iterations. */
    static final long VOLUME = 64L << 20;

    final String tool;
    final int id;
    final int defaultPort;
    final Op op;
    final boolean pingPong;

    NdTest(String tool, int id, int defaultPort, Op op, boolean pingPong) {
        this.tool = tool;
        this.id = id;
        this.defaultPort = defaultPort;
        this.op = op;
        this.pingPong = pingPong;
    }

    /** The test with wire id {@code id}, or null. */
    static NdTest byId(int id) {
        for (NdTest t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        return null;
    }

    /** Iterations for {@code size}: {@code max}, scaled down so that one size moves at most {@link #VOLUME}. */
    static int iterations(int size, int max) {
        return (int) Math.max(1, Math.min(max, VOLUME / size));
    }
}
