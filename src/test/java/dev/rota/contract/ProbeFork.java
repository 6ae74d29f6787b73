package dev.rota.contract;

import dev.rota.RotaTask;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/** A fork that says whether it ran; it returns 1. */
public final class ProbeFork extends RotaTask<Integer> {
    /** Set when {@link #compute()} runs. */
    public final AtomicBoolean ran = new AtomicBoolean();

    @Override
    protected Integer compute() {
        ran.set(true);
        return 1;
    }

    /**
     * Waits for {@code latch} as a task deaf to interrupts does, so that a shutdownNow does not end
     * it; leaves no interrupt flag behind.
     */
    public static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException ignored) {
                // deaf to the interrupt
            }
        }
    }
}
