package io.jndk.provider;

import io.jndk.api.CloseCompletion;
import io.jndk.api.NdkClosable;
import io.jndk.api.NdkObjectType;
import io.jndk.api.NdkVersion;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Lifetime of every closable NDK object: successor counting (a close of an antecedent pends until its
 * last successor has closed and that successor's close callback has returned), in-progress event
 * callbacks, and the rule that the close completion is the object's last callback.
 */
abstract class SoftObject implements NdkClosable {
    enum Life { OPEN, CLOSING, CLOSED }

    final SoftAdapter adapter;
    private final NdkObjectType type;
    /** Guards the lifetime fields. */
    final Object lifeLock = new Object();
    private Life life = Life.OPEN;
    private int successors;
    private int busy;
    private CloseCompletion closeCompletion;
    private Object closeContext;
    private boolean closePended;
    /** Antecedents this object holds a successor reference on (released after the close completes). */
    private final List<SoftObject> antecedents = new ArrayList<>(2);

    SoftObject(SoftAdapter adapter, NdkObjectType type) {
        this.adapter = adapter;
        this.type = type;
    }

    @Override
    public final NdkVersion version() {
        return adapter.version();
    }

    @Override
    public final NdkObjectType objectType() {
        return type;
    }

    @Override
    public final int queryExtension(UUID id, NdkVersion v, Ref<Object> out) {
        return NtStatus.STATUS_NOT_SUPPORTED;
    }

    /** True while the consumer has not started closing the object. */
    final boolean isOpen() {
        synchronized (lifeLock) {
            return life == Life.OPEN;
        }
    }

    final Life life() {
        synchronized (lifeLock) {
            return life;
        }
    }

    /** Records that {@code successor} depends on this object. */
    final void addSuccessor(SoftObject successor) {
        synchronized (lifeLock) {
            successors++;
        }
        synchronized (successor.lifeLock) {
            successor.antecedents.add(this);
        }
    }

    /** Drops one dependency of {@code successor} on this object early (e.g. a window unbound from its MR). */
    final void dropSuccessor(SoftObject successor) {
        boolean removed;
        synchronized (successor.lifeLock) {
            removed = successor.antecedents.remove(this);
        }
        if (removed) {
            releaseSuccessor();
        }
    }

    private void releaseSuccessor() {
        boolean extra = extraCloseConditionMet();
        boolean finish;
        synchronized (lifeLock) {
            successors--;
            finish = readyToFinish(extra);
        }
        if (finish) {
            finishClose();
        }
    }

    /** Marks an event callback in progress; returns false when the object is closed. */
    final boolean enterCallback() {
        synchronized (lifeLock) {
            if (life == Life.CLOSED) {
                return false;
            }
            busy++;
            return true;
        }
    }

    final void exitCallback() {
        boolean extra = extraCloseConditionMet();
        boolean finish;
        synchronized (lifeLock) {
            busy--;
            finish = readyToFinish(extra);
        }
        if (finish) {
            finishClose();
        }
    }

    /**
     * Under {@link #lifeLock}. {@code extra} is {@link #extraCloseConditionMet()} evaluated <em>before</em> taking
     * the lock: subclasses answer it under their own locks, and taking those inside {@code lifeLock} would invert
     * the order used by their callback paths (deadlock). Whoever makes the extra condition true calls
     * {@link #recheckClose()} afterwards, so a stale {@code false} is never final.
     */
    private boolean readyToFinish(boolean extra) {
        return life == Life.CLOSING && successors == 0 && busy == 0 && closePended && extra;
    }

    /**
     * Subclasses may hold the close open longer (e.g. pending requests being cancelled). Never called under
     * {@link #lifeLock}; once true it must stay true.
     */
    boolean extraCloseConditionMet() {
        return true;
    }

    /** Re-evaluates whether a pending close can now complete. */
    final void recheckClose() {
        boolean extra = extraCloseConditionMet();
        boolean finish;
        synchronized (lifeLock) {
            finish = readyToFinish(extra);
        }
        if (finish) {
            finishClose();
        }
    }

    @Override
    public final int close(CloseCompletion completion, Object requestContext) {
        synchronized (lifeLock) {
            if (life != Life.OPEN) {
                // The consumer never closes twice; answer without a second completion.
                return NtStatus.STATUS_SUCCESS;
            }
            life = Life.CLOSING;
            closeCompletion = completion;
            closeContext = requestContext;
        }
        onClose();
        boolean extra = extraCloseConditionMet();
        boolean inline;
        synchronized (lifeLock) {
            inline = successors == 0 && busy == 0 && extra && !adapter.pendAlways();
            if (inline) {
                life = Life.CLOSED;
            } else {
                closePended = true;
            }
        }
        if (inline) {
            onClosed();
            adapter.releaseSlot(this);
            releaseAntecedents();
            return NtStatus.STATUS_SUCCESS;
        }
        recheckClose();
        return NtStatus.STATUS_PENDING;
    }

    private void finishClose() {
        synchronized (lifeLock) {
            if (life != Life.CLOSING) {
                return;
            }
            life = Life.CLOSED;
        }
        onClosed();
        adapter.releaseSlot(this);
        CloseCompletion cc = closeCompletion;
        Object ctx = closeContext;
        adapter.dispatcher().run(() -> {
            try {
                if (cc != null) {
                    cc.onClosed(ctx);
                }
            } finally {
                releaseAntecedents();
            }
        });
    }

    private void releaseAntecedents() {
        List<SoftObject> list;
        synchronized (lifeLock) {
            list = new ArrayList<>(antecedents);
            antecedents.clear();
        }
        for (SoftObject a : list) {
            a.releaseSuccessor();
        }
        adapter.childGone(this);
    }

    /** Side effects of starting a close (flushes, cancellations, refusing new connections). */
    abstract void onClose();

    /** Final release of resources once the object is closed. */
    void onClosed() {}
}
