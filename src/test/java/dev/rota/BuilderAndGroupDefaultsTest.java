package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rota.core.Group;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a pool built with no share or overload settings gives, as README documents: the stride
 * policy in slices of 1 ms, a default group of 100 base tickets with no bound on its queue, and
 * named groups that queue 65,536 tasks and abort beyond that.
 */
class BuilderAndGroupDefaultsTest {

    @Test
    void aPoolDividesTimeByStrideInOneMillisecondQuantaByDefault() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            assertSame(SharePolicy.STRIDE, pool.policy(), "the default share policy");
            assertEquals(Duration.ofMillis(1), pool.quantum(), "the default quantum");
        }
    }

    @Test
    void theDefaultGroupHoldsOneHundredBaseTicketsAndAnUnboundedQueue() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            TaskGroup defaultGroup = pool.defaultGroup();
            assertEquals(100, defaultGroup.tickets(), "the default group's tickets");
            assertEquals(pool.baseCurrency(), defaultGroup.currency(), "the default group's tickets are not base tickets");
            assertEquals(Group.UNBOUNDED, defaultGroup.queueCapacity(),
                    "the default group's queue is bounded, unlike ForkJoinPool's");
        }
    }

    @Test
    void aNamedGroupQueues65536TasksAndAbortsBeyondByDefault() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            TaskGroup gold = pool.group("gold", 300);
            assertEquals(65_536, gold.queueCapacity(), "a named group's default queue capacity");
            assertEquals(TaskGroup.DEFAULT_QUEUE_CAPACITY, gold.queueCapacity(),
                    "a named group's capacity differs from TaskGroup.DEFAULT_QUEUE_CAPACITY");
            assertSame(RejectionPolicy.ABORT, gold.rejectionPolicy(), "a named group's default rejection policy");
        }
    }
}
