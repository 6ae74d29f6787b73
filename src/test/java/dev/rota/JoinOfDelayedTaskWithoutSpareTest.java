package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A RotaTask given to {@code schedule} runs once its delay has passed, never before (README:
 * a wait that runs what it waits for does not run "a scheduled task, due or not"). It belongs to
 * the default group, so a join of it from a task of the default group is a join within one group;
 * where no spare can stand in for the joiner (here {@code maxSpareThreads(0)}, and another group's
 * task queued for the only worker, so that the join would block with a spare), the join must wait
 * for the delay, not run the task it joins at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JoinOfDelayedTaskWithoutSpareTest {
    private static final long DELAY_NANOS = TimeUnit.SECONDS.toNanos(2);

    @Test
    void aJoinWithNoSpareDoesNotRunADelayedTaskOfItsOwnGroupBeforeItIsDue() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(0).pinning(false).build();
        AtomicLong scheduledAt = new AtomicLong();
        AtomicLong ranAt = new AtomicLong();
        CountDownLatch otherRan = new CountDownLatch(1);
        try {
            TaskGroup other = pool.group("other", 100);
            Future<Integer> joiner = pool.submit(() -> {  // a task of the default group, on the only worker
                RotaTask<Integer> delayed = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        ranAt.set(System.nanoTime());
                        return 7;
                    }
                };
                scheduledAt.set(System.nanoTime());
                pool.schedule(delayed, DELAY_NANOS, TimeUnit.NANOSECONDS);
                other.execute(otherRan::countDown);      // another group waits for this worker
                return delayed.join();
            });
            assertEquals(7, joiner.get(Liveness.SECONDS, TimeUnit.SECONDS));
            long early = scheduledAt.get() + DELAY_NANOS - ranAt.get();
            assertTrue(early <= 0, "the delayed task ran " + TimeUnit.NANOSECONDS.toMillis(early)
                    + " ms before it was due, run in place by the join that waited for it");
            Liveness.await(otherRan, "the other group's task never ran");
        } finally {
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }
}
