package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.NoAffinity;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** Rota-specific behaviour of {@link RotaPool}; the shared ExecutorService contract is in ExecutorContractTest. */
class RotaPoolTest {

    private static String message(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void badBuilderInputIsNamed() {
        assertTrue(message(() -> RotaPool.builder().workers(0)).contains("0"));
        assertTrue(message(() -> RotaPool.builder().workers(-3)).contains("-3"));
        assertTrue(message(() -> RotaPool.builder().workers(RotaPool.Builder.MAX_WORKERS + 1)).contains("32768"));
        assertTrue(message(() -> RotaPool.builder().workers(Integer.MAX_VALUE)).contains(String.valueOf(Integer.MAX_VALUE)));
        RotaPool.builder().workers(RotaPool.Builder.MAX_WORKERS);   // the limit itself is allowed
        assertTrue(message(() -> RotaPool.builder().cpus(0, -2)).contains("-2"));
        assertTrue(message(() -> RotaPool.builder().cpus(1, 1)).contains("1"));
        assertThrows(IllegalArgumentException.class, () -> RotaPool.builder().cpus());
        assertThrows(NullPointerException.class, () -> RotaPool.builder().cpus((int[]) null));
    }

    @Test
    void aSpareKeepAliveTooLongForNanosecondsMeansForEver() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1)
                .spareKeepAlive(java.time.temporal.ChronoUnit.FOREVER.getDuration()).build()) {
            assertEquals(42, pool.submit(() -> 42).get(dev.rota.contract.Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    @Test
    void cpuTheProcessMayNotUseIsRejectedByNumber() {
        int notAllowed = CpuTopology.current().cpuIds().length() + 1000;
        String msg = message(() -> RotaPool.builder().cpus(notAllowed).build());
        assertTrue(msg.contains(Integer.toString(notAllowed)), msg);
    }

    @Test
    void oneWorkerPerAllowedCpuByDefault() {
        try (RotaPool pool = RotaPool.create()) {
            CpuTopology topology = pool.topology();
            assertEquals(Math.min(topology.cpus().size(), Runtime.getRuntime().availableProcessors()), pool.workers());
            Set<Integer> cpus = new HashSet<>();
            for (CpuTopology.WorkerPlacement w : topology.workers()) {
                cpus.add(w.cpu());
            }
            assertEquals(pool.workers(), cpus.size(), "each worker on its own CPU");
        }
    }

    /**
     * A pool built on a thread pinned to one CPU (a task of another pool, say) has a worker per CPU
     * of the process all the same: the JVM counts only the calling thread's CPUs in
     * {@code availableProcessors()}, which must not cap the workers of a pool built there to one.
     */
    @Test
    void aPoolBuiltOnAPinnedThreadHasAWorkerPerCpuAllTheSame() throws Exception {
        Affinity affinity = Affinity.system();
        assumeTrue(affinity.canPin(), affinity.unavailableReason());
        int expected;
        try (RotaPool pool = RotaPool.create()) {
            expected = pool.workers();
        }
        assumeTrue(expected >= 2, "needs two CPUs");
        int cpu = CpuTopology.current().cpuIds().nextSetBit(0);
        AtomicReference<Object> seen = new AtomicReference<>();
        Thread.ofPlatform().start(() -> {
            if (!affinity.pinCurrentThread(cpu).pinned()) {
                seen.set("not pinned");
                return;
            }
            try (RotaPool fromBuilder = RotaPool.builder().build(); RotaPool created = RotaPool.create()) {
                seen.set(List.of(fromBuilder.workers(), created.workers(), affinity.allowedCpus().cardinality()));
            } catch (Throwable t) {
                seen.set(t);
            }
        }).join();
        assertEquals(List.of(expected, expected, 1), seen.get(),
                "workers of a pool built, then created, on a thread pinned to CPU " + cpu
                        + ", and the CPUs that thread may use afterwards");
    }

    /** Under a container's CPU quota the JVM counts fewer processors than CPUs: as many workers as it counts. */
    @Test
    void noMoreWorkersByDefaultThanTheProcessorsTheJvmMayUse() {
        CpuTopology eightCpus = CpuTopology.flat(CpuList.parse("0-7"));
        NoAffinity unpinned = new NoAffinity("no pinning in this test");
        try (RotaPool pool = RotaPool.builder().platform(unpinned, eightCpus).availableProcessors(2).build()) {
            assertEquals(2, pool.workers());
            assertEquals(2, pool.topology().workers().stream().map(CpuTopology.WorkerPlacement::cpu).distinct().count(),
                    "each worker on its own CPU");
        }
        try (RotaPool pool = RotaPool.builder().platform(unpinned, eightCpus).availableProcessors(64).build()) {
            assertEquals(8, pool.workers(), "one per CPU where the JVM may use more processors than there are CPUs");
        }
        try (RotaPool pool = RotaPool.builder().platform(unpinned, eightCpus).availableProcessors(2).workers(5).build()) {
            assertEquals(5, pool.workers(), "a worker count asked for is kept");
        }
        assertTrue(message(() -> RotaPool.builder().availableProcessors(0)).contains("0"));
    }

    @Test
    void workersArePinnedWhereThePlatformAllows() {
        assumeTrue(Affinity.system().canPin(), Affinity.system().unavailableReason());
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            assertTrue(pool.topology().pinned(), pool.topology().toString());
            for (CpuTopology.WorkerPlacement w : pool.topology().workers()) {
                assertEquals("", w.note());
            }
        }
    }

    @Test
    void unpinnedPoolSaysWhy() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).pinning(false).build()) {
            assertFalse(pool.topology().pinned());
            for (CpuTopology.WorkerPlacement w : pool.topology().workers()) {
                assertFalse(w.pinned());
                assertTrue(w.note().contains("disabled"), w.note());
            }
            assertEquals(42, pool.submit(() -> 42).get(30, TimeUnit.SECONDS));
        }
    }

    /** Workers start with the mask of the thread that builds the pool, here a worker pinned to one CPU. */
    @Test
    void unpinnedPoolBuiltOnAPinnedWorkerRunsOnEveryCpu() throws Exception {
        assumeTrue(Affinity.system().canPin(), Affinity.system().unavailableReason());
        BitSet process = Affinity.system().processCpus();
        assumeTrue(process.cardinality() >= 2, "needs two CPUs");
        try (RotaPool outer = RotaPool.builder().cpus(process.nextSetBit(0)).build()) {
            BitSet seen = outer.submit(() -> {
                try (RotaPool inner = RotaPool.builder().workers(1).pinning(false).build()) {
                    return inner.submit(() -> Affinity.system().allowedCpus()).get(30, TimeUnit.SECONDS);
                }
            }).get(30, TimeUnit.SECONDS);

            assertEquals(process, seen, "the CPUs an unpinned worker may run on");
        }
    }

    @Test
    void explicitCpusAreUsedInOrder() {
        int cpu = CpuTopology.current().cpus().getFirst().id();
        try (RotaPool pool = RotaPool.builder().cpus(cpu).build()) {
            assertEquals(1, pool.workers());
            assertEquals(cpu, pool.topology().workers().getFirst().cpu());
        }
    }

    @Test
    void moreWorkersThanCpusShareCpus() throws Exception {
        int cpus = CpuTopology.current().cpus().size();
        try (RotaPool pool = RotaPool.builder().workers(cpus + 2).build()) {
            assertEquals(cpus + 2, pool.workers());
            LongAdder ran = new LongAdder();
            for (int i = 0; i < 10_000; i++) {
                pool.execute(ran::increment);
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
            assertEquals(10_000, ran.sum());
        }
    }

    /** A worker's own submissions wait in its own queue; when it blocks, the other worker steals them. */
    @Test
    void tasksOfABlockedWorkerAreStolen() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            int n = 1_000;
            CountDownLatch children = new CountDownLatch(n);
            AtomicBoolean allRan = new AtomicBoolean();
            pool.submit(() -> {
                for (int i = 0; i < n; i++) {
                    pool.execute(children::countDown);
                }
                allRan.set(children.await(30, TimeUnit.SECONDS));   // blocks this worker
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertTrue(allRan.get(), "the blocked worker's tasks were not taken by the other worker");
            assertTrue(pool.stolenTasks() > 0);
            long perWorker = pool.workerStats().stream().mapToLong(WorkerStats::stolen).sum();
            assertEquals(pool.stolenTasks(), perWorker, "steals are counted per worker");
        }
    }

    /**
     * A worker that takes a batch out of another worker's inbox has taken every task of it: the
     * figure counts tasks, as {@code ForkJoinPool.getStealCount()} does, not the takes.
     */
    @Test
    void stolenTasksCountEveryTaskTakenFromAnotherWorker() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            int n = 1_000;
            CountDownLatch children = new CountDownLatch(n);
            Set<String> childThreads = ConcurrentHashMap.newKeySet();
            AtomicReference<String> parentThread = new AtomicReference<>();
            boolean allRan = pool.submit(() -> {
                parentThread.set(Thread.currentThread().getName());
                for (int i = 0; i < n; i++) {
                    pool.execute(() -> {                 // into this worker's inbox, which only the other one drains
                        childThreads.add(Thread.currentThread().getName());
                        children.countDown();
                    });
                }
                return children.await(30, TimeUnit.SECONDS);   // blocks this worker
            }).get(60, TimeUnit.SECONDS);
            assertTrue(allRan, "the blocked worker's tasks were not taken by the other worker");
            assertEquals(1, childThreads.size(), "every task was run by the worker not blocked: " + childThreads);
            String thief = childThreads.iterator().next();
            assertFalse(thief.equals(parentThread.get()));
            int thiefIndex = Integer.parseInt(thief.substring(thief.lastIndexOf('-') + 1));
            assertEquals(n, pool.workerStats().get(thiefIndex).stolen(),
                    "every task the other worker took from the blocked one's inbox is a stolen task");
        }
    }

    @Test
    void uncaughtExceptionGoesToTheHandlerAndTheWorkerCarriesOn() throws Exception {
        List<Throwable> seen = new ArrayList<>();
        AtomicReference<Thread> handlerThread = new AtomicReference<>();
        CountDownLatch handled = new CountDownLatch(3);
        Thread.UncaughtExceptionHandler handler = (t, e) -> {
            synchronized (seen) {
                seen.add(e);
            }
            handlerThread.set(t);
            handled.countDown();
        };
        try (RotaPool pool = RotaPool.builder().workers(1).uncaughtExceptionHandler(handler).build()) {
            Set<Thread> workerThreads = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 3; i++) {
                int n = i;
                pool.execute(() -> {
                    workerThreads.add(Thread.currentThread());
                    throw new IllegalStateException("boom " + n);
                });
            }
            assertTrue(handled.await(30, TimeUnit.SECONDS));
            assertEquals(7, pool.submit(() -> 7).get(30, TimeUnit.SECONDS), "the worker still runs tasks");
            assertEquals(1, workerThreads.size(), "the same worker carried on");
            assertSame(workerThreads.iterator().next(), handlerThread.get());
            synchronized (seen) {
                assertEquals(3, seen.size());
                assertTrue(seen.stream().allMatch(e -> e instanceof IllegalStateException));
            }
        }
    }

    @Test
    void interruptOfOneTaskDoesNotLeakIntoTheNext() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            pool.execute(() -> Thread.currentThread().interrupt());
            assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void workerThreadsAreNamedDaemonsByDefault() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).name("orders").build()) {
            Thread worker = pool.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertTrue(worker.isDaemon());
            assertTrue(worker.getName().startsWith("orders-worker-"), worker.getName());
            assertEquals("orders", pool.name());
        }
        try (RotaPool pool = RotaPool.builder().workers(1).daemon(false).build()) {
            assertFalse(pool.submit(() -> Thread.currentThread().isDaemon()).get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void countsTasksAndReportsStateInToString() throws Exception {
        RotaPool pool = RotaPool.builder().workers(2).build();
        for (int i = 0; i < 1000; i++) {
            pool.execute(() -> {});
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(1000, pool.completedTasks());
        assertEquals(0, pool.queuedTasks());
        assertTrue(pool.toString().contains("Terminated"), pool.toString());
    }

    /** After shutdown() a pool is shutting down, also while it waits for a delayed task to come due. */
    @Test
    void aPoolWaitingForADelayedTaskAfterShutdownSaysItIsShuttingDown() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        try {
            pool.schedule(() -> { }, 1, TimeUnit.HOURS);
            pool.shutdown();
            assertTrue(pool.isShutdown());
            assertTrue(pool.toString().contains("Shutting down"), pool.toString());
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /**
     * A delayed one-shot task that its user ran before its deadline (run() of its future, as
     * FutureTask allows) is done: after shutdown() the pool terminates without waiting for the
     * deadline of a task that has nothing left to do.
     */
    @Test
    void aDelayedTaskRunBeforeItsDeadlineDoesNotHoldUpTermination() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).build();
        try {
            AtomicBoolean ran = new AtomicBoolean();
            RunnableScheduledFuture<?> early =
                    (RunnableScheduledFuture<?>) pool.schedule(() -> ran.set(true), 1, TimeUnit.HOURS);
            early.run();
            assertTrue(ran.get() && early.isDone());
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS),
                    "the pool waits for the deadline of a delayed task that already ran: " + pool);
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /**
     * The pool's uncaught exception handler serves every thread of the pool: its timer thread too,
     * which reports there the Error it would die of (out of memory, say).
     */
    @Test
    void theTimerThreadReportsToThePoolsUncaughtExceptionHandler() throws Exception {
        Thread.UncaughtExceptionHandler handler = (thread, failure) -> { };
        RotaPool pool = RotaPool.builder().workers(1).name("handled").uncaughtExceptionHandler(handler).build();
        try {
            pool.schedule(() -> { }, 1, TimeUnit.HOURS);        // starts the timer
            Thread timer = Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> thread.getName().equals("handled-timer"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no thread named handled-timer"));
            assertSame(handler, timer.getUncaughtExceptionHandler());
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
    }
}
