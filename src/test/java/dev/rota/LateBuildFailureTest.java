package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.PinResult;
import dev.rota.contract.Liveness;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@code build()} that fails after its workers have started (here: the building thread runs out
 * of memory as it reports the workers' pins) throws that failure and leaves none of those workers
 * behind. The pool was never handed out, so nobody could shut it down: its workers would idle for
 * the life of the JVM, and a {@code commonPool()} retried after such a failure would add one set per
 * try.
 */
class LateBuildFailureTest {
    private static final BitSet PROCESS_CPUS = CpuList.parse("0-1");

    /** Pins every worker; once all have pinned, the building thread's next question fails. */
    private static final class FailingAfterPinsAffinity implements Affinity {
        final AtomicInteger pinned = new AtomicInteger();
        final Thread builder = Thread.currentThread();
        final int workers;
        final OutOfMemoryError failure = new OutOfMemoryError("test: out of memory after the workers started");

        FailingAfterPinsAffinity(int workers) {
            this.workers = workers;
        }

        @Override
        public boolean canPin() {
            if (Thread.currentThread() == builder && pinned.get() == workers) {
                throw failure;
            }
            return true;
        }

        @Override public String unavailableReason() { return ""; }
        @Override public BitSet allowedCpus() { return (BitSet) PROCESS_CPUS.clone(); }
        @Override public int currentCpu() { return -1; }

        @Override
        public PinResult pinCurrentThread(int cpu) {
            pinned.incrementAndGet();
            return PinResult.success(cpu, cpu);
        }
    }

    @Test
    void aBuildThatFailsAfterItsWorkersStartedStopsThem() throws Exception {
        FailingAfterPinsAffinity affinity = new FailingAfterPinsAffinity(2);
        String name = "late-failure";
        OutOfMemoryError thrown = assertThrows(OutOfMemoryError.class, () -> RotaPool.builder().workers(2)
                .name(name).daemon(false).platform(affinity, CpuTopology.flat(PROCESS_CPUS)).build());
        assertSame(affinity.failure, thrown);
        assertEquals(2, affinity.pinned.get(), "both workers had started and pinned");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
        List<Thread> left;
        while (!(left = workersOf(name)).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(left.isEmpty(), "workers left running: " + left);
    }

    private static List<Thread> workersOf(String pool) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(pool + "-worker-") && thread.isAlive())
                .toList();
    }
}
