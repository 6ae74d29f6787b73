package dev.rota.contract;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK's blocker shape for {@code managedBlock}: releasable once its latch is open, and
 * {@link #block()} waits on the latch. Counts its {@code block()} calls, so that a test can see
 * whether the pool blocked at all.
 */
public final class LatchBlocker implements ForkJoinPool.ManagedBlocker {
    private final CountDownLatch latch;
    private final AtomicInteger blockCalls = new AtomicInteger();

    public LatchBlocker(CountDownLatch latch) {
        this.latch = latch;
    }

    @Override
    public boolean block() throws InterruptedException {
        blockCalls.incrementAndGet();
        latch.await();
        return true;
    }

    @Override
    public boolean isReleasable() {
        return latch.getCount() == 0;
    }

    /** How often {@link #block()} has been called. */
    public int blockCalls() {
        return blockCalls.get();
    }
}
