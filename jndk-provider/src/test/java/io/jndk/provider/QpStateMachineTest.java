package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jndk.api.NtStatus;
import io.jndk.provider.SoftQp.State;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The QP state machine of NDKPI.md §7.12, as {@link SoftQp} owns it: its transitions and its named changers. */
class QpStateMachineTest {
    /** The transitions §7.12 describes, written out independently of the code. */
    private static final Map<State, Set<State>> EDGES = Map.of(
            State.IDLE, EnumSet.of(State.CONNECTING, State.ERROR),
            State.CONNECTING, EnumSet.of(State.IDLE, State.CONNECTED, State.ERROR),
            State.CONNECTED, EnumSet.of(State.PEER_DISCONNECTED, State.ERROR),
            State.PEER_DISCONNECTED, EnumSet.of(State.ERROR),
            State.ERROR, EnumSet.of(State.ERROR));

    private final Objects o = new Objects();
    private final SoftCq cq = o.cq(64, null);
    private final SoftConnector connector = new SoftConnector(o.adapter, null);

    @AfterEach
    void close() {
        o.close();
    }

    @ParameterizedTest
    @EnumSource(State.class)
    void theTableHasExactlyTheDocumentedTransitions(State from) {
        for (State to : State.values()) {
            assertThat(from.canBecome(to)).as(from + " -> " + to).isEqualTo(EDGES.get(from).contains(to));
        }
    }

    @Test
    void aTransitionTheTableLacksIsABug() {
        SoftQp qp = o.qp(cq, 4);
        assertThatThrownBy(() -> qp.transition(State.IDLE, State.CONNECTED)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> qp.transition(State.IDLE, State.PEER_DISCONNECTED))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> qp.transition(State.ERROR, State.CONNECTED)).isInstanceOf(IllegalStateException.class);
        assertThat(qp.state()).isEqualTo(State.IDLE);
    }

    @Test
    void aTransitionFromAnotherStateDoesNothing() {
        SoftQp qp = o.qp(cq, 4);
        assertThat(qp.transition(State.CONNECTED, State.PEER_DISCONNECTED)).isFalse();
        assertThat(qp.state()).isEqualTo(State.IDLE);
        assertThat(qp.transition(State.IDLE, State.CONNECTING)).isTrue();
        assertThat(qp.state()).isEqualTo(State.CONNECTING);
    }

    @Test
    void aConnectionAttemptTakesAnIdleQpOnce() {
        SoftQp qp = o.qp(cq, 4);
        assertThat(qp.beginConnect(connector)).isEqualTo(NtStatus.STATUS_SUCCESS);
        assertThat(qp.state()).isEqualTo(State.CONNECTING);
        assertThat(qp.connector()).isSameAs(connector);
        SoftConnector other = new SoftConnector(o.adapter, null);
        assertThat(qp.beginConnect(other)).isEqualTo(NtStatus.STATUS_CONNECTION_ACTIVE);
        assertThat(qp.connector()).isSameAs(connector);
    }

    @Test
    void aFailedAttemptLeavesTheQpReusableEvenWhenItWasFlushedMeanwhile() {
        SoftQp qp = o.qp(cq, 4);
        qp.beginConnect(connector);
        qp.detach(new SoftConnector(o.adapter, null)); // not its connector: nothing happens
        assertThat(qp.state()).isEqualTo(State.CONNECTING);
        qp.detach(connector);
        assertThat(qp.state()).isEqualTo(State.IDLE);
        assertThat(qp.connector()).isNull();
        qp.beginConnect(connector);
        qp.flushAll();
        assertThat(qp.state()).isEqualTo(State.ERROR);
        qp.detach(connector);
        assertThat(qp.state()).isEqualTo(State.IDLE);
        assertThat(qp.beginConnect(connector)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @Test
    void anEstablishedConnectionMakesTheQpConnectedAndNeverReusable() {
        SoftQp qp = o.qp(cq, 4);
        qp.beginConnect(connector);
        qp.attach(null);
        assertThat(qp.state()).isEqualTo(State.CONNECTED);
        assertThat(qp.transition(State.CONNECTED, State.PEER_DISCONNECTED)).isTrue();
        qp.toError("test");
        qp.detach(connector);
        assertThat(qp.state()).isEqualTo(State.ERROR);
        assertThat(qp.beginConnect(new SoftConnector(o.adapter, null))).isEqualTo(NtStatus.STATUS_CONNECTION_ACTIVE);
    }

    @Test
    void aQpFlushedWhileConnectingStaysInErrorWhenTheConnectionCompletes() {
        SoftQp qp = o.qp(cq, 4);
        qp.beginConnect(connector);
        qp.flushAll();
        qp.attach(null);
        assertThat(qp.state()).isEqualTo(State.ERROR);
    }

    @Test
    void aConnectionThatNeverStartedIsUndone() {
        SoftQp qp = o.qp(cq, 4);
        qp.beginConnect(connector);
        qp.attach(null);
        qp.attachFailed();
        assertThat(qp.state()).isEqualTo(State.CONNECTING);
        qp.detach(connector);
        assertThat(qp.state()).isEqualTo(State.IDLE);
        assertThat(qp.beginConnect(connector)).isEqualTo(NtStatus.STATUS_SUCCESS);
    }

    @ParameterizedTest
    @EnumSource(State.class)
    void errorIsEnteredFromEveryState(State from) {
        SoftQp qp = o.qp(cq, 4);
        switch (from) {
            case IDLE -> { }
            case CONNECTING -> qp.beginConnect(connector);
            case CONNECTED, PEER_DISCONNECTED -> {
                qp.beginConnect(connector);
                qp.attach(null);
                if (from == State.PEER_DISCONNECTED) {
                    qp.transition(State.CONNECTED, State.PEER_DISCONNECTED);
                }
            }
            case ERROR -> qp.toError("first");
        }
        assertThat(qp.state()).isEqualTo(from);
        qp.toError("test");
        assertThat(qp.state()).isEqualTo(State.ERROR);
    }

    @Test
    void postsNeedAConnectedQp() {
        SoftQp qp = o.qp(cq, 4);
        assertThat(qp.write(null, new io.jndk.api.NdkSge[0], 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_CONNECTION_INVALID);
        qp.beginConnect(connector);
        assertThat(qp.write(null, new io.jndk.api.NdkSge[0], 0, 0, 0, 0)).isEqualTo(NtStatus.STATUS_CONNECTION_INVALID);
    }
}
