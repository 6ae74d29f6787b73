package dev.rota;

import dev.rota.core.Group;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A blocking call made as one managed block, with ticket transfer to the group whose tasks it waits
 * for (see {@link TicketTransfer}): for the waits of {@link #invokeAny}, whose
 * {@link java.util.concurrent.ExecutorCompletionService} waits plainly, and for a group's
 * {@code awaitTermination} (and so its {@code close()}). On a pool thread a spare
 * keeps the core busy meanwhile, so the tasks waited for can run even on a pool of one worker.
 *
 * @param <T> the call's result type
 */
final class ManagedCall<T> implements ForkJoinPool.ManagedBlocker {
    /** The blocking call. */
    @FunctionalInterface
    interface Body<T> {
        T call() throws InterruptedException, ExecutionException, TimeoutException;
    }

    private final Body<T> body;
    private boolean done;
    private T result;
    private Exception failure;

    private ManagedCall(Body<T> body) {
        this.body = body;
    }

    /**
     * Runs {@code body} as a managed block that lends the caller's group's tickets to {@code target}
     * (null: lends nothing).
     */
    static <T> T await(Group target, Body<T> body) throws InterruptedException, ExecutionException, TimeoutException {
        ManagedCall<T> call = new ManagedCall<>(body);
        TicketTransfer.await(target, call);
        if (call.failure instanceof ExecutionException e) {
            throw e;
        }
        if (call.failure instanceof TimeoutException e) {
            throw e;
        }
        return call.result;
    }

    /** As {@link #await}, for a call that cannot time out. */
    static <T> T awaitUntimed(Group target, Body<T> body) throws InterruptedException, ExecutionException {
        try {
            return await(target, body);
        } catch (TimeoutException e) {
            throw new IllegalStateException("an untimed call timed out", e);
        }
    }

    /** As {@link #await}, for a call that reports no outcome by exception: a wait for termination. */
    static <T> T awaitInterruptibly(Group target, Body<T> body) throws InterruptedException {
        try {
            return await(target, body);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a call without failures failed", e);
        }
    }

    /**
     * {@code AbstractExecutorService.invokeAny} for {@code executor}, whose tasks run in
     * {@code target}, with the same steps (one task submitted at first, one more each time none is
     * done; the first result returned, the others cancelled), but only its waits for a result are
     * managed blocks that lend to {@code target}, one per wait. Its submissions are made in the
     * caller's own time, outside any block: a submission refused for a full queue may run its task
     * in the caller ({@link RejectionPolicy#CALLER_RUNS}), and that run is the caller's work, charged
     * to the group its thread runs, with no spare standing in for the same worker meanwhile. Inside
     * one block around the whole call the slice's clock would stand still for that run, and the
     * run would share its CPU with the spare.
     */
    static <T> T invokeAny(Executor executor, Group target, Collection<? extends Callable<T>> tasks)
            throws InterruptedException, ExecutionException {
        try {
            return invokeAny(executor, target, tasks, false, 0L);
        } catch (TimeoutException e) {
            throw new IllegalStateException("an untimed invokeAny timed out", e);
        }
    }

    /** As {@link #invokeAny(Executor, Group, Collection)}, with a {@link TimeoutException} once the timeout has passed. */
    static <T> T invokeAny(Executor executor, Group target, Collection<? extends Callable<T>> tasks, long timeout,
            TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        return invokeAny(executor, target, tasks, true, Objects.requireNonNull(unit, "unit").toNanos(timeout));
    }

    private static <T> T invokeAny(Executor executor, Group target, Collection<? extends Callable<T>> tasks,
            boolean timed, long nanos) throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(tasks, "tasks");
        int unsubmitted = tasks.size();
        if (unsubmitted == 0) {
            throw new IllegalArgumentException("tasks is empty");
        }
        List<Future<T>> futures = new ArrayList<>(unsubmitted);
        CompletionService<T> completion = new ExecutorCompletionService<>(executor);
        try {
            ExecutionException last = null;
            long deadline = timed ? System.nanoTime() + nanos : 0L;
            Iterator<? extends Callable<T>> it = tasks.iterator();
            futures.add(completion.submit(it.next()));
            unsubmitted--;
            int active = 1;
            while (true) {
                Future<T> done = completion.poll();
                if (done == null) {
                    if (unsubmitted > 0) {
                        unsubmitted--;
                        futures.add(completion.submit(it.next()));
                        active++;
                    } else if (active == 0) {
                        break;
                    } else if (timed) {
                        long wait = nanos;
                        done = await(target, () -> completion.poll(wait, TimeUnit.NANOSECONDS));
                        if (done == null) {
                            throw new TimeoutException();
                        }
                        nanos = deadline - System.nanoTime();
                    } else {
                        done = awaitUntimed(target, completion::take);
                    }
                }
                if (done != null) {
                    active--;
                    try {
                        return done.get();
                    } catch (ExecutionException e) {
                        last = e;
                    } catch (RuntimeException e) {
                        last = new ExecutionException(e);
                    }
                }
            }
            throw last != null ? last : new ExecutionException("no task completed", null);
        } finally {
            for (Future<T> future : futures) {
                future.cancel(true);
            }
        }
    }

    /** Runs the call once; its unchecked exceptions and an interrupt go straight to the caller. */
    @Override
    public boolean block() throws InterruptedException {
        try {
            result = body.call();
        } catch (ExecutionException | TimeoutException e) {
            failure = e;
        } finally {
            done = true;
        }
        return true;
    }

    @Override
    public boolean isReleasable() {
        return done;
    }
}
