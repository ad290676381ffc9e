package io.jndk.iwarp.transport;

import io.jndk.provider.spi.EngineThread;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * All of the polling mode ({@code poll=true}) of one connection: who drives the engine besides its own threads, and
 * how the engine threads wait. In any other mode the connection holds an instance whose hooks do nothing (every
 * one returns at once), so {@link RxEngine} and {@link TxEngine} read as the blocking engine with named hooks.
 *
 * <p><b>The channel.</b> Polling mode runs the channel non-blocking, so that a consumer's receive step and a poster
 * that must not wait (an engine thread running a notification inline) never block in the socket; the engine threads
 * wait for readiness on a selector each instead ({@link #awaitWritable}). In the other modes the channel blocks.
 *
 * <p><b>Transmit: caller-runs.</b> A poster that finds the transmit side free sends its work itself
 * ({@link #transmitInline}), up to {@link #INLINE_TURNS} turns; the transmit thread takes over what is left.
 */
final class ConsumerDrive {
    private static final Logger LOG = Logger.getLogger(ConsumerDrive.class.getName());
    /** Turns a poster runs inline before it leaves the rest to the transmit thread. */
    static final int INLINE_TURNS = 16;
    /** A selection action that does nothing: waiting is all a selector is for here (and it adds no keys). */
    static final Consumer<SelectionKey> IGNORE_KEY = k -> { };

    private final boolean polling;
    private final ConnectionState state;
    /** Opened by {@link #open} before the engine threads start; closed after both ended. */
    private volatile Selector rxSelector, txSelector;

    ConsumerDrive(EngineMode engine, ConnectionState state) {
        this.polling = engine.poll();
        this.state = state;
    }

    /** @return whether this connection runs in polling mode */
    boolean polling() {
        return polling;
    }

    // ---- the channel and its selectors ----------------------------------------------------------------------

    /**
     * Polling mode: makes the channel non-blocking and opens the selectors (before the engine threads start).
     *
     * @return false when that failed (logged; the connection must close)
     */
    boolean open(SocketChannel channel) {
        if (!polling || state.isClosed()) {
            return true;
        }
        try {
            channel.configureBlocking(false);
            rxSelector = Selector.open();
            channel.register(rxSelector, SelectionKey.OP_READ);
            txSelector = Selector.open();
            channel.register(txSelector, SelectionKey.OP_WRITE);
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "iWARP polling mode: cannot make the channel non-blocking", e);
            close();
            return false;
        }
    }

    /** After both engine threads ended (or when they never start): the selectors go. */
    void close() {
        for (Selector sel : new Selector[] {rxSelector, txSelector}) {
            if (sel != null) {
                try {
                    sel.close();
                } catch (IOException ignored) {
                    // nothing left to do
                }
            }
        }
    }

    /** Wakes the receive thread out of its selector (a failure, a disconnect, the close). */
    void wakeReceiver() {
        Selector r = rxSelector;
        if (r != null) {
            r.wakeup();
        }
    }

    /** Wakes the transmit side out of its selector (the close). */
    void wakeTransmitter() {
        Selector w = txSelector;
        if (w != null) {
            w.wakeup();
        }
    }

    /** The receive selector, for the receive thread's wait (until the receive half moves here). */
    Selector rxSelector() {
        return rxSelector;
    }

    // ---- transmit -------------------------------------------------------------------------------------------

    /**
     * Polling mode, a poster's {@code kick}: runs the transmit side on the posting thread when it is free.
     *
     * @return whether this thread transmitted (false: blocking mode, or the transmit thread is to be woken)
     */
    boolean transmitInline(TxEngine tx) {
        // an interrupted poster would close the channel in its write (an interruptible channel), or not wait in a
        // selector: leave it to the transmit thread
        if (!polling || state.failure() != null || state.isClosed() || Thread.currentThread().isInterrupted()) {
            return false;
        }
        // an engine thread (a notification running inline, on this connection's receive thread or on another
        // connection's thread) must never wait for this socket: it takes only small requests and leaves a write the
        // socket cannot take at once to the transmit thread
        boolean mayWait = !EngineThread.isEngineThread() || Thread.currentThread() == tx.thread();
        return tx.runInline(INLINE_TURNS, mayWait);
    }

    /** The socket is full (a non-blocking write took nothing): waits until it is writable, or the close. */
    void awaitWritable() throws IOException {
        if (state.isClosed()) {
            throw new ClosedChannelException();
        }
        txSelector.select(IGNORE_KEY, 0);
    }
}
