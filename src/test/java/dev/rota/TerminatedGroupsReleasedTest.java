package dev.rota;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A terminated group leaves the pool: a pool that lives long and makes and ends groups (one per
 * tenant session, say) must not keep every group it ever made, with a lane per worker each.
 */
class TerminatedGroupsReleasedTest {

    @Test
    void aTerminatedGroupIsNotKeptByItsPool() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            WeakReference<TaskGroup> ended = endedGroup(pool);
            WeakReference<Object> endedCore = new WeakReference<>(ended.get().core);
            pool.group("next", 1);                      // the pool goes on making groups
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while ((ended.get() != null || endedCore.get() != null) && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(10);
            }
            assertNull(ended.get(), "a terminated group is still reachable from its pool");
            assertNull(endedCore.get(), "a terminated group's lanes are still reachable from its pool");
        }
    }

    private static WeakReference<TaskGroup> endedGroup(RotaPool pool) throws InterruptedException {
        TaskGroup session = pool.group("session", 1);
        session.submit(() -> 1);
        session.shutdown();
        assertTrue(session.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        return new WeakReference<>(session);
    }
}
