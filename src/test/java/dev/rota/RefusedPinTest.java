package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.PinResult;
import dev.rota.contract.Liveness;
import java.util.BitSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A thread whose pin the kernel refuses runs unpinned, free to use every CPU of the process, not on
 * whatever CPUs it inherited: the thread that builds a pool (or starts a spare) may itself be pinned,
 * to one CPU of another pool, and a worker left there would crowd that CPU and leave its own idle.
 */
class RefusedPinTest {
    private static final BitSet PROCESS_CPUS = CpuList.parse("0-3");

    /** Refuses every pin; records which threads were refused and which masks threads asked for after. */
    private static final class RefusingAffinity implements Affinity {
        final Set<Thread> refused = ConcurrentHashMap.newKeySet();
        final Map<Thread, BitSet> allowedLast = new ConcurrentHashMap<>();

        @Override public boolean canPin() { return true; }
        @Override public String unavailableReason() { return ""; }
        @Override public BitSet allowedCpus() { return (BitSet) PROCESS_CPUS.clone(); }
        @Override public BitSet processCpus() { return (BitSet) PROCESS_CPUS.clone(); }
        @Override public int currentCpu() { return -1; }

        @Override
        public PinResult pinCurrentThread(int cpu) {
            refused.add(Thread.currentThread());
            allowedLast.remove(Thread.currentThread());   // as the kernel would leave it: what it had
            return PinResult.failure(cpu, "sched_setaffinity refused: EPERM (test)");
        }

        @Override
        public boolean allowCurrentThread(BitSet cpus) {
            allowedLast.put(Thread.currentThread(), (BitSet) cpus.clone());
            return true;
        }

        /** Threads that were refused a pin and were not then let run on every CPU of the process. */
        Set<Thread> leftOnInheritedCpus() {
            Set<Thread> left = ConcurrentHashMap.newKeySet();
            for (Thread thread : refused) {
                if (!PROCESS_CPUS.equals(allowedLast.get(thread))) {
                    left.add(thread);
                }
            }
            return left;
        }
    }

    private static RotaPool.Builder on(RefusingAffinity affinity, int workers) {
        return RotaPool.builder().workers(workers).platform(affinity, CpuTopology.flat(PROCESS_CPUS));
    }

    @Test
    void aWorkerWhosePinIsRefusedMayRunOnEveryCpuOfTheProcess() {
        RefusingAffinity affinity = new RefusingAffinity();
        try (RotaPool pool = on(affinity, 4).build()) {
            assertFalse(pool.topology().pinned());
            assertEquals(4, affinity.refused.size(), "every worker tried to pin");
            assertEquals(Set.of(), affinity.leftOnInheritedCpus());
        }
    }

    @Test
    void aSpareWhosePinIsRefusedMayRunOnEveryCpuOfTheProcess() throws Exception {
        RefusingAffinity affinity = new RefusingAffinity();
        try (RotaPool pool = on(affinity, 1).build()) {
            Set<Thread> workers = Set.copyOf(affinity.refused);
            CountDownLatch ranBeside = new CountDownLatch(1);
            pool.submit(() -> {
                RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                    @Override
                    public boolean block() throws InterruptedException {
                        return ranBeside.await(Liveness.SECONDS, TimeUnit.SECONDS);
                    }

                    @Override
                    public boolean isReleasable() {
                        return ranBeside.getCount() == 0;
                    }
                });
                return null;
            });
            pool.execute(ranBeside::countDown);          // only a spare can run it: the one worker blocks
            pool.shutdown();
            assertTrue(pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertTrue(affinity.refused.size() > workers.size(), "a spare tried to pin to the blocked worker's CPU");
            assertEquals(Set.of(), affinity.leftOnInheritedCpus());
        }
    }
}
