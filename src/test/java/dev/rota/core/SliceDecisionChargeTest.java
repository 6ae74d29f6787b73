package dev.rota.core;

import static dev.rota.core.Offers.assertAccepted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decision between two slices (the dispatcher's lock, a wait for it, the charge and the pick) is
 * charged to neither: a slice's clock starts once the decision that opened it is made (W4). Charged
 * to the slice it opened, a wait for the lock held by other workers would count against whichever
 * group came next, most against the groups whose slices are shortest.
 *
 * <p>The engine is not started: the test drives worker 0 one search at a time
 * ({@link Worker#runOneTimedTask()}, the duty cycle's clock included), with both groups confined to
 * worker 0, while another thread holds the dispatcher's lock across the switch from one to the other.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SliceDecisionChargeTest {
    /** How long the other thread holds the dispatcher's lock while worker 0 switches slices. */
    private static final long HOLD_NANOS = 50_000_000;
    /** The quantum of {@link UnstartedEngine#ofTwoWorkers}. */
    private static final long QUANTUM_NANOS = 1_000_000;

    private Engine engine;
    private Group first;
    private Group second;
    private Worker worker;
    private final AtomicInteger ran = new AtomicInteger();
    private final Map<Group, Long> charged = new ConcurrentHashMap<>();
    private final Map<Group, Long> lastCharge = new ConcurrentHashMap<>();

    @BeforeEach
    void createGroups() {
        engine = UnstartedEngine.ofTwoWorkers("slice-decision");
        Dispatcher dispatcher = engine.dispatcher();
        first = dispatcher.newGroup("first", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        second = dispatcher.newGroup("second", dispatcher.baseCurrency(), 100, Group.UNBOUNDED, 16);
        first.restrictTo(WorkerMask.of(2, 0));
        second.restrictTo(WorkerMask.of(2, 0));
        dispatcher.observeSlices((group, usedNanos) -> {
            charged.merge(group, usedNanos, Long::sum);
            lastCharge.put(group, usedNanos);
        });
        worker = engine.worker(0);
    }

    @AfterEach
    void stop() {
        engine.shutdownNow();
    }

    @Test
    void aWaitForTheLockBetweenTwoSlicesIsChargedToNeither() throws InterruptedException {
        assertAccepted(first.offer(ran::incrementAndGet));
        assertTrue(worker.runOneTimedTask(), "worker 0 opens a slice of the first group and runs its task");
        assertAccepted(second.offer(ran::incrementAndGet));

        CountDownLatch held = new CountDownLatch(1);
        AtomicLong released = new AtomicLong();
        Thread holder = new Thread(() -> engine.dispatcher().withLedger(ledger -> {
            held.countDown();
            LockSupport.parkNanos(HOLD_NANOS);
            released.set(System.nanoTime());             // before the unlock, so before the switch goes on
            return null;
        }), "lock-holder");
        holder.start();
        held.await();
        // The first group is dry and the second has work: this search ends the first slice and waits
        // for the lock to pick the second, then runs its task in the same busy stretch.
        assertTrue(worker.runOneTimedTask(), "worker 0 switches to the second group and runs its task");
        holder.join();
        assertEquals(2, ran.get());
        for (int search = 0; search < Worker.DRY_SLICE_SEARCHES && !charged.containsKey(second); search++) {
            assertFalse(worker.runOneTimedTask(), "nothing left to run");
        }
        long end = System.nanoTime();

        assertTrue(charged.containsKey(second), "the second group's dry slice ended and was charged");
        // The second slice began after the decision, so after the lock was let go: its charge fits
        // in what came after. Charged from before the wait, it would hold most of the 50 ms.
        long after = end - released.get();
        assertTrue(charged.get(second) <= after,
                () -> "second charged " + charged.get(second) + " ns, " + after + " ns after the lock was let go");
    }

    /**
     * A join that has used its slice's quantum while another group waits charges the slice's time
     * so far, under the lock, before it blocks ({@link Worker#joinYieldsSlice}); the wait for that
     * lock is the pool's too, not the rest of the slice's.
     */
    @Test
    void aWaitForTheLockToChargePartOfASliceIsNotChargedToTheRest() throws InterruptedException {
        AtomicLong released = new AtomicLong();
        boolean[] yielded = new boolean[1];
        assertAccepted(first.offer(() -> {
            LockSupport.parkNanos(2 * QUANTUM_NANOS);    // the task's own time: past the quantum
            assertAccepted(second.offer(ran::incrementAndGet)); // another group waits for this worker
            CountDownLatch held = new CountDownLatch(1);
            Thread holder = new Thread(() -> engine.dispatcher().withLedger(ledger -> {
                held.countDown();
                LockSupport.parkNanos(HOLD_NANOS);
                released.set(System.nanoTime());
                return null;
            }), "lock-holder");
            holder.start();
            try {
                held.await();
                yielded[0] = !worker.helpOnce(true);     // a join about to help: the quantum is used, so it charges
                holder.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            ran.incrementAndGet();
        }));
        assertTrue(worker.runOneTimedTask(), "worker 0 runs the first group's task");
        assertTrue(yielded[0], "the join would block with a spare standing in");
        long charges = charged.get(first);
        assertTrue(worker.runOneTimedTask(), "worker 0 switches to the second group");
        long end = System.nanoTime();
        assertEquals(2, ran.get());
        assertTrue(charged.get(first) > charges, "the first slice's end was charged after the join's part");
        long after = end - released.get();
        assertTrue(lastCharge.get(first) <= after,
                () -> "the first slice's end charged " + lastCharge.get(first) + " ns, " + after + " ns after the lock was let go");
    }
}
