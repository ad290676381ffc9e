package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.iwarp.transport.ConnectionState.Phase;
import java.util.EnumSet;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The connection lifecycle alone: the transition table, the guard, first failure wins, the one-shot facts. */
class ConnectionStateTest {

    /** Every legal edge; everything else is refused. */
    private static final Set<String> LEGAL = Set.of(
        "NEW->AWAITING_PEER", "NEW->OUTPUT_HELD", "NEW->ESTABLISHED",
        "AWAITING_PEER->ESTABLISHED", "AWAITING_PEER->ABANDONED",
        "OUTPUT_HELD->ESTABLISHED");

    @Test
    void theTransitionTableIsExactlyTheLegalEdges() {
        for (Phase from : Phase.values()) {
            for (Phase to : Phase.values()) {
                assertThat(from.mayAdvanceTo(to)).as(from + "->" + to).isEqualTo(LEGAL.contains(from + "->" + to));
            }
        }
    }

    @Test
    void anIllegalTransitionIsRefusedAndLoggedNeverThrown() {
        Logger log = Logger.getLogger(ConnectionState.class.getName());
        java.util.List<LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parent = log.getUseParentHandlers();
        log.setUseParentHandlers(false);
        log.addHandler(h);
        try {
            for (Phase from : Phase.values()) {
                for (Phase to : Phase.values()) {
                    if (LEGAL.contains(from + "->" + to)) {
                        continue;
                    }
                    ConnectionState s = reach(from);
                    records.clear();
                    assertThat(s.advance(from, to)).as(from + "->" + to).isFalse();
                    assertThat(s.phase()).as(from + "->" + to).isEqualTo(from);
                    assertThat(records).as(from + "->" + to).singleElement()
                        .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.SEVERE));
                }
            }
        } finally {
            log.removeHandler(h);
            log.setUseParentHandlers(parent);
        }
    }

    @Test
    void aLegalEdgeFromAnotherPhaseIsALostRaceNotABug() {
        ConnectionState s = reach(Phase.ESTABLISHED);
        // a failing passive side that lost to the first FPDU (or an active side): nothing changes
        assertThat(s.advance(Phase.AWAITING_PEER, Phase.ABANDONED)).isFalse();
        assertThat(s.phase()).isEqualTo(Phase.ESTABLISHED);
        // starting twice
        assertThat(s.advance(Phase.NEW, Phase.ESTABLISHED)).isFalse();
    }

    @Test
    void establishmentSettlesOnceItHasAnAnswer() throws InterruptedException {
        ConnectionState s = new ConnectionState();
        assertThat(s.started()).isFalse();
        assertThat(s.advance(Phase.NEW, Phase.AWAITING_PEER)).isTrue();
        assertThat(s.started()).isTrue();
        assertThat(s.established()).isFalse();
        assertThat(s.awaitSettled(1)).isFalse();
        assertThat(s.advance(Phase.AWAITING_PEER, Phase.ABANDONED)).isTrue();
        assertThat(s.awaitSettled(1)).isTrue();
        assertThat(s.established()).isFalse();

        ConnectionState held = new ConnectionState();
        assertThat(held.advance(Phase.NEW, Phase.OUTPUT_HELD)).isTrue();
        assertThat(held.awaitSettled(1)).isTrue();
        assertThat(held.established()).isTrue();
        assertThat(held.advance(Phase.OUTPUT_HELD, Phase.ESTABLISHED)).isTrue();
        assertThat(EnumSet.of(Phase.OUTPUT_HELD, Phase.ESTABLISHED)).allMatch(Phase::established);
    }

    @Test
    void theFirstFailureWinsAndTheEndIsReportedOnce() {
        ConnectionState s = reach(Phase.ESTABLISHED);
        Failure first = Failure.connectionReset();
        assertThat(s.record(first)).isTrue();
        assertThat(s.record(Failure.terminateReceived(0x1201))).isFalse();
        assertThat(s.failure()).isSameAs(first);
        assertThat(s.claimEndReport()).isTrue();
        assertThat(s.claimEndReport()).isFalse();
        ConnectionState told = reach(Phase.ESTABLISHED);
        told.endReportNotNeeded();
        assertThat(told.claimEndReport()).isFalse();
    }

    @Test
    void closeHappensOnceAndToStringShowsTheState() throws InterruptedException {
        ConnectionState s = reach(Phase.ESTABLISHED);
        assertThat(s).hasToString("ESTABLISHED");
        s.record(Failure.terminateSent(0x1201, null));
        s.requestDisconnect();
        assertThat(s.close()).isTrue();
        assertThat(s.close()).isFalse();
        assertThat(s.awaitCloseDone(1)).isFalse();
        s.closeDone();
        assertThat(s.awaitCloseDone(1)).isTrue();
        assertThat(s.toString()).startsWith("ESTABLISHED failed(sent term=0x1201 ").contains(" disconnecting")
            .endsWith(" closed");
        // never started: closed is all it takes
        ConnectionState unstarted = new ConnectionState();
        unstarted.close();
        unstarted.closeDone();
        assertThat(unstarted.awaitClosed(1)).isTrue();
        // started: the threads must end too
        s.threadsStarting(2);
        assertThat(s.threadEnded()).isFalse();
        assertThat(s.awaitClosed(1)).isFalse();
        assertThat(s.threadEnded()).isTrue();
        s.threadsDone();
        assertThat(s.awaitClosed(1)).isTrue();
    }

    /** A state in {@code phase}, reached by legal edges. */
    private static ConnectionState reach(Phase phase) {
        ConnectionState s = new ConnectionState();
        switch (phase) {
            case NEW -> { }
            case AWAITING_PEER, OUTPUT_HELD, ESTABLISHED -> assertThat(s.advance(Phase.NEW, phase)).isTrue();
            case ABANDONED -> {
                assertThat(s.advance(Phase.NEW, Phase.AWAITING_PEER)).isTrue();
                assertThat(s.advance(Phase.AWAITING_PEER, Phase.ABANDONED)).isTrue();
            }
        }
        return s;
    }
}
