package io.jndk.roce.cm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Keeps every event it receives, and optionally reacts to each (auto-accept, auto-complete). */
final class Recorder implements CmHandler {

    final List<CmEvent> events = new ArrayList<>();
    private final Consumer<CmEvent> reaction;

    Recorder() {
        this(e -> {
        });
    }

    Recorder(Consumer<CmEvent> reaction) {
        this.reaction = reaction;
    }

    @Override
    public void onEvent(CmEvent event) {
        events.add(event);
        reaction.accept(event);
    }

    <T extends CmEvent> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    <T extends CmEvent> List<T> of(Class<T> type, CmConnection c) {
        return of(type).stream().filter(e -> e.connection() == c).toList();
    }

    <T extends CmEvent> T only(Class<T> type) {
        List<T> all = of(type);
        if (all.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + ", got " + events);
        }
        return all.get(0);
    }
}
