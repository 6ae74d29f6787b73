package dev.rota.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The smallest ScheduledExecutorService built on a {@link DelayScheduler}: a fixed pool of worker
 * threads plus the scheduler, wired the way RotaPool is meant to wire them (see package-info). It
 * lets the scheduled-executor contract run against this package before RotaPool adopts it.
 *
 * <p>Termination: {@code shutdown()} marks the pool shut down and shuts the scheduler down; the
 * worker pool is shut down only when the scheduler reports itself idle, so delayed one-shot tasks
 * still find workers when they come due.
 */
public final class DelaySchedulerPool extends AbstractExecutorService
        implements ScheduledExecutorService, DueTaskSink {

    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOPPED = 2;

    private final ThreadPoolExecutor workers;
    private final DelayScheduler scheduler;
    private final AtomicInteger runState = new AtomicInteger(RUNNING);

    public DelaySchedulerPool(int workerCount) {
        AtomicInteger next = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(workerCount, workerCount, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), task -> {
                    Thread thread = new Thread(task, "delay-scheduler-pool-" + next.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.scheduler = new DelayScheduler(this, "delay-scheduler-pool-timer");
    }

    // ---- DueTaskSink ---------------------------------------------------------------------------

    @Override
    public boolean submitDue(Runnable task) {
        if (runState.get() == STOPPED) {
            return false;
        }
        try {
            workers.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    public void schedulerIdle() {
        workers.shutdown();   // queued and running tasks still finish
    }

    // ---- ScheduledExecutorService --------------------------------------------------------------

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return scheduler.schedule(command, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return scheduler.schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduler.scheduleAtFixedRate(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        return scheduler.scheduleWithFixedDelay(command, initialDelay, delay, unit);
    }

    @Override
    public void execute(Runnable command) {
        if (runState.get() != RUNNING) {
            throw new RejectedExecutionException("pool is shut down");
        }
        workers.execute(command);
    }

    @Override
    public void shutdown() {
        runState.compareAndSet(RUNNING, SHUTDOWN);
        scheduler.shutdown();   // calls schedulerIdle(), now or when the last delayed task is handed over
    }

    @Override
    public List<Runnable> shutdownNow() {
        runState.set(STOPPED);
        List<Runnable> neverStarted = new ArrayList<>(scheduler.shutdownNow());
        neverStarted.addAll(workers.shutdownNow());
        return neverStarted;
    }

    @Override
    public boolean isShutdown() {
        return runState.get() != RUNNING;
    }

    @Override
    public boolean isTerminated() {
        return workers.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return workers.awaitTermination(timeout, unit);
    }

    DelayScheduler scheduler() {
        return scheduler;
    }
}
