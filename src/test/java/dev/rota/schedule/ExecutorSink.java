package dev.rota.schedule;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A test sink: runs due tasks on a fixed pool of two threads, or refuses them on demand. */
final class ExecutorSink implements DueTaskSink {

    enum Mode { ACCEPT, REFUSE, THROW }

    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    final AtomicInteger submitted = new AtomicInteger();
    final AtomicInteger idleCalls = new AtomicInteger();
    final CountDownLatch idle = new CountDownLatch(1);
    volatile Mode mode = Mode.ACCEPT;

    @Override
    public boolean submitDue(Runnable task) {
        switch (mode) {
            case REFUSE:
                return false;
            case THROW:
                throw new IllegalStateException("sink broken on purpose");
            default:
                submitted.incrementAndGet();
                workers.execute(task);
                return true;
        }
    }

    @Override
    public void schedulerIdle() {
        idleCalls.incrementAndGet();
        idle.countDown();
    }

    /** Lets every task already submitted finish, then stops the workers. */
    void drain() throws InterruptedException {
        workers.shutdown();
        if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test sink's workers did not drain");
        }
    }

    /** Stops the workers, interrupting running tasks. */
    void stop() throws InterruptedException {
        workers.shutdownNow();
        if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("test sink's workers did not stop");
        }
    }
}
