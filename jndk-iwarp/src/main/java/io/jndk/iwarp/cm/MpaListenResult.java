package io.jndk.iwarp.cm;

import java.util.Objects;

/** Result of {@link MpaListener#open}: a running listener or the reason it could not be opened. */
public sealed interface MpaListenResult permits MpaListenResult.Listening, MpaListenResult.Failed {

    /**
     * The listener is bound and accepting.
     *
     * @param listener the listener; close it when done
     */
    record Listening(MpaListener listener) implements MpaListenResult {
        /** Checks arguments. */
        public Listening {
            Objects.requireNonNull(listener, "listener");
        }
    }

    /**
     * Nothing is bound.
     *
     * @param reason {@link MpaFailure#ADDRESS_IN_USE} or {@link MpaFailure#INVALID_ADDRESS}, mostly
     * @param detail a human-readable explanation for logs
     */
    record Failed(MpaFailure reason, String detail) implements MpaListenResult {
        /** Checks arguments. */
        public Failed {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }
}
