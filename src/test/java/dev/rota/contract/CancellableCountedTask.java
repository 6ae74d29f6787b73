package dev.rota.contract;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A numbered task of a {@link RunCounter} that is itself a {@link ForkJoinTask}, so that
 * {@link ForkJoinPool#execute(Runnable)} queues it unwrapped and a test can see which queued tasks
 * the pool cancelled on {@code shutdownNow()} (ForkJoinPool returns none of them).
 *
 * <p>A cancelled task sets its flag in the shared {@code cancelled} array; the flag is set after the
 * task's status turned cancelled, so a task whose flag is clear was not cancelled before the caller
 * read the flag after the pool terminated.
 */
public final class CancellableCountedTask extends ForkJoinTask<Void> implements Runnable {

    private final RunCounter counter;
    private final int id;
    private final AtomicIntegerArray cancelled;

    public CancellableCountedTask(RunCounter counter, int id, AtomicIntegerArray cancelled) {
        counter.task(id); // validates the id
        this.counter = counter;
        this.id = id;
        this.cancelled = cancelled;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean result = super.cancel(mayInterruptIfRunning);
        if (isCancelled()) {
            cancelled.set(id, 1);
        }
        return result;
    }

    @Override
    protected boolean exec() {
        counter.ran(id);
        return true;
    }

    @Override
    public void run() {
        invoke();
    }

    @Override
    public Void getRawResult() {
        return null;
    }

    @Override
    protected void setRawResult(Void value) {
    }
}
