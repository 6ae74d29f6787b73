package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * G2 for a fork whose activation was missed: a worker's push is a release store, and where the
 * forking worker may run the fork itself no fence orders it before the read of the group's
 * activation state ({@code Worker.pushFork}), so that read may find the group still active while a
 * dry slice ending elsewhere makes it idle without seeing the fork. The group then holds the fork,
 * idle, with no activation queued. Here that state is made directly (the push without its read), on
 * an engine whose workers were never started: the other worker, which sees the fork in its last look
 * before parking and so does not park, must then take it, not spin beside it until the forking
 * worker's slice ends.
 */
class ForkSeenBeforeParkingTest {
    @Test
    void aWorkerThatSeesAForkOfAnIdleGroupBeforeParkingTakesIt() {
        Engine engine = new Engine("missed-fork", new int[] {0, 1}, new int[][] {{1}, {0}}, new NoAffinity("test"),
                false, null, true, Engine.DEFAULT_MAX_SPARES, Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS,
                new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 5);
        Dispatcher dispatcher = engine.dispatcher();
        Group group = dispatcher.newGroup("g", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        Worker taker = engine.worker(0);
        assertEquals(Group.IDLE, group.activation(), "set-up: a new group is idle");
        AtomicBoolean forkRan = new AtomicBoolean();
        group.lanes[1].deque.push(() -> forkRan.set(true)); // worker 1's fork, its activation missed

        assertFalse(taker.runOneTask(), "set-up: no activation is queued, so no pick finds the group");
        assertFalse(taker.prepareToPark(), "the worker sees the fork, so it does not park");
        assertTrue(taker.runOneTask(), "the worker that saw the fork did not take it");
        assertTrue(forkRan.get());
    }
}
