package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.NoAffinity;
import dev.rota.share.StrideScheduler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * W5 after a worker's empty pick: a group whose mask allows only workers that have exited runs on
 * the workers left, and one of them whose last pick found nothing must pick again once the mask has
 * lapsed. A worker skips its pick while the dispatcher's version stays where it was at its last empty
 * pick; a lapse changes no ledger state, so without the exit raising the version the worker would
 * see the group's task (and so never park), may not exit (a task is queued), and never take it.
 * Driven step by step on one thread, on an engine whose workers were never started.
 */
class LapsedMaskPickTest {
    @Test
    void aWorkerPicksAGroupWhoseMaskLapsedAfterItsLastEmptyPick() {
        Engine engine = new Engine("lapse", new int[] {0, 1, 2}, new int[][] {{1, 2}, {0, 2}, {0, 1}},
                new NoAffinity("test"), false, null, true, Engine.DEFAULT_MAX_SPARES,
                Engine.DEFAULT_SPARE_KEEP_ALIVE_NANOS, new StrideScheduler(), TimeUnit.MILLISECONDS.toNanos(1), 5);
        Dispatcher dispatcher = engine.dispatcher();
        Group group = dispatcher.newGroup("g", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        Worker a = engine.worker(0);
        Worker b = engine.worker(1);
        Worker c = engine.worker(2);
        group.restrictTo(WorkerMask.of(3, 1));           // so that B runs the task below
        AtomicBoolean forkRan = new AtomicBoolean();
        AtomicBoolean cSawWork = new AtomicBoolean();
        AtomicBoolean cMayExit = new AtomicBoolean(true);
        AtomicBoolean cTookFork = new AtomicBoolean();
        assertAccepted(group.offer(() -> {               // runs in B's slice of the group
            group.restrictTo(WorkerMask.of(3, 0));       // the group moves to A while this task runs on B
            assertFalse(c.runOneTask(), "C's pick: the group is runnable, but not for C");
            engine.shutdown();
            a.exitAfterShutdown();                       // A leaves (E2): nothing is queued
            b.pushLocal(() -> forkRan.set(true));        // a fork after A left: the mask has lapsed (W5)
            cSawWork.set(c.seesWork());
            cMayExit.set(engine.mayWorkerExit());
            cTookFork.set(c.runOneTask());
        }));
        assertTrue(b.runOneTask(), "B runs the group's task");
        assertTrue(cSawWork.get(), "C sees the lapsed group's fork, so it does not park");
        assertFalse(cMayExit.get(), "C may not exit while the fork is queued");
        assertTrue(cTookFork.get(), "C never picked the lapsed group: its last empty pick's version still held");
        assertTrue(forkRan.get());
    }
}
