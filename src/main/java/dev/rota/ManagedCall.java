package dev.rota;

import dev.rota.core.Group;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeoutException;

/**
 * A blocking call made as one managed block, with ticket transfer to the group whose tasks it waits
 * for (see {@link TicketTransfer}): for the JDK's {@code invokeAny}, whose wait in an
 * {@link java.util.concurrent.ExecutorCompletionService} is a plain one, and for a group's
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
