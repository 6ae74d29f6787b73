package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task's {@code invokeAny} on a group whose queue is full, with {@link RejectionPolicy#CALLER_RUNS}:
 * the refused task runs in the calling task, as the policy says, and its CPU time is then the
 * calling task's, charged to the caller's group. {@code invokeAny}'s waits for a result are managed
 * blocks (a spare may stand in for the worker, and the slice's clock stops), but a task run by the
 * caller is no wait: run inside that block it would be charged to no group at all, and run beside
 * the spare standing in for the same worker.
 *
 * <p>One worker, busy with the calling task, so the full group's queued task stays queued and the
 * refusal is certain.
 */
class CallerRunsInInvokeAnyTest {
    private static final long SPIN_NANOS = 200_000_000L;

    private final RotaPool pool = RotaPool.builder().workers(1).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    @Test
    void aTaskRunByTheCallerOfAGroupsInvokeAnyIsChargedToTheCallersGroup() throws Exception {
        TaskGroup full = pool.group("full", 1);
        assertCallerRunsAndIsCharged(full, tasks -> full.invokeAny(tasks));
    }

    @Test
    void aTaskRunByTheCallerOfThePoolsInvokeAnyIsChargedToTheCallersGroup() throws Exception {
        assertCallerRunsAndIsCharged(pool.defaultGroup(), tasks -> pool.invokeAny(tasks, Liveness.SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aTaskRunByTheCallerOfASubmitOnlyViewsInvokeAnyIsChargedToTheCallersGroup() throws Exception {
        TaskGroup full = pool.group("full", 1);
        assertCallerRunsAndIsCharged(full, tasks -> full.submitOnly().invokeAny(tasks));
    }

    private interface InvokeAny {
        Integer invoke(List<Callable<Integer>> tasks) throws Exception;
    }

    private void assertCallerRunsAndIsCharged(TaskGroup full, InvokeAny invokeAny) throws Exception {
        full.setQueueCapacity(1);
        full.setRejectionPolicy(RejectionPolicy.CALLER_RUNS);
        TaskGroup caller = pool.group("caller", 1);
        AtomicReference<Thread> callerThread = new AtomicReference<>();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicLong spent = new AtomicLong();
        Integer result = caller.submit(() -> {
            callerThread.set(Thread.currentThread());
            full.execute(() -> { });                     // fills the queue: the only worker runs this task
            return invokeAny.invoke(List.of(() -> {
                ranOn.set(Thread.currentThread());
                spent.set(spinCpu(SPIN_NANOS));
                return 7;
            }));
        }).get(Liveness.SECONDS, TimeUnit.SECONDS);
        assertEquals(7, result);
        assertSame(callerThread.get(), ranOn.get(), "the refused task ran in the caller");
        assertEquals(1, full.stats().rejectedTasks());
        caller.shutdown();
        assertTrue(caller.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        long charged = caller.stats().cpuTimeNanos();
        assertTrue(charged >= spent.get() / 2, "the caller ran the refused task for " + spent.get()
                + " ns of CPU time, but its group was charged " + charged + " ns");
    }

    /** Spins until the calling thread has used {@code nanos} of CPU time; returns what it used. */
    private static long spinCpu(long nanos) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long used;
        while ((used = threads.getCurrentThreadCpuTime() - start) < nanos) {
            Thread.onSpinWait();
        }
        return used;
    }
}
