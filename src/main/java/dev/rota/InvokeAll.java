package dev.rota;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;
import java.util.function.Function;

/**
 * The untimed {@code invokeAll} of the pool and of its groups: {@code AbstractExecutorService}'s
 * steps, except that every task's future is made before the first is submitted, as the JDK's timed
 * form does. A null among the tasks then throws {@link NullPointerException} with nothing submitted,
 * where the JDK's untimed form has submitted, and may have run, every task before the null, and then
 * leaves them cancelled in the queue, each holding a place of a bounded group's capacity until a
 * worker reaches it.
 */
final class InvokeAll {
    private InvokeAll() {
    }

    /**
     * Makes a future of each task with {@code newTask} (which throws on a null task), submits them
     * all to {@code executor} in order, and waits for each; on any failure of the submissions or an
     * interrupt of the wait, cancels them all and rethrows.
     */
    static <T> List<Future<T>> untimed(Collection<? extends Callable<T>> tasks,
            Function<Callable<T>, RunnableFuture<T>> newTask, Executor executor) throws InterruptedException {
        Objects.requireNonNull(tasks, "tasks");
        List<RunnableFuture<T>> made = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            made.add(newTask.apply(task));
        }
        List<Future<T>> futures = new ArrayList<>(made);
        try {
            for (RunnableFuture<T> future : made) {
                executor.execute(future);
            }
            for (Future<T> future : futures) {
                if (!future.isDone()) {
                    try {
                        future.get();                    // a managed wait that lends the caller's tickets
                    } catch (CancellationException | ExecutionException ignored) {
                        // the outcome is the future's own, for the caller to read
                    }
                }
            }
            return futures;
        } catch (Throwable failure) {
            for (Future<T> future : futures) {
                future.cancel(true);
            }
            throw failure;
        }
    }
}
