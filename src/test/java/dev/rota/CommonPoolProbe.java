package dev.rota;

import dev.rota.affinity.Affinity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * Run in a child JVM by {@link CommonPoolTest}, so that the common pool is made there for the first
 * time, by the use the mode names. Prints {@code key=value} lines for the test to read.
 * <ul>
 *   <li>{@code race}: 64 threads ask for the common pool at once;</li>
 *   <li>{@code pinned}: the common pool is first used by a thread pinned to one CPU;</li>
 *   <li>{@code transient}: the first use of the common pool fails (the thread runs out of stack
 *       while the pool is made, as it might run out of native threads), and a later one follows;</li>
 *   <li>{@code exit}: a pool that is never shut down, with a task run and a delayed one waiting,
 *       and the common pool in use; main returns, and the JVM must exit.</li>
 * </ul>
 */
public final class CommonPoolProbe {
    private CommonPoolProbe() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "race" -> race();
            case "pinned" -> pinned();
            case "exit" -> exit();
            case "transient" -> transientFailure();
            default -> throw new IllegalArgumentException("unknown mode: " + args[0]);
        }
    }

    private static void race() throws Exception {
        int threads = 64;
        CyclicBarrier start = new CyclicBarrier(threads);
        Set<RotaPool> seen = ConcurrentHashMap.newKeySet();
        List<Thread> askers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            askers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                seen.add(RotaPool.commonPool());
            }));
        }
        for (Thread asker : askers) {
            asker.join();
        }
        RotaPool common = RotaPool.commonPool();
        long workerThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(common.name() + "-worker-")).count();
        System.out.println("pools=" + seen.size());
        System.out.println("workers=" + common.workers());
        System.out.println("worker-threads=" + workerThreads);
        System.out.println("ran=" + common.submit(() -> 42).get(30, TimeUnit.SECONDS));
    }

    private static void pinned() throws Exception {
        Affinity affinity = Affinity.system();
        System.out.println("can-pin=" + affinity.canPin());
        System.out.println("process-cpus=" + CpuTopology.current().cpuIds().cardinality());
        System.out.println("expected-workers=" + Math.min(CpuTopology.current().cpus().size(),
                Runtime.getRuntime().availableProcessors()));
        int cpu = CpuTopology.current().cpuIds().nextSetBit(0);
        CompletableFuture<RotaPool> made = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                System.out.println("pinned=" + (affinity.canPin() && affinity.pinCurrentThread(cpu).pinned()));
                made.complete(RotaPool.commonPool());
            } catch (Throwable t) {
                made.completeExceptionally(t);
            }
        }).join();
        RotaPool common = made.get(30, TimeUnit.SECONDS);
        System.out.println("workers=" + common.workers());
    }

    private static void exit() throws Exception {
        RotaPool pool = RotaPool.builder().name("abandoned").build();
        System.out.println("ran=" + pool.submit(() -> 1).get(30, TimeUnit.SECONDS));
        pool.schedule(() -> {}, 1, TimeUnit.HOURS);     // its timer thread waits an hour
        System.out.println("common=" + RotaPool.commonPool().submit(() -> 2).get(30, TimeUnit.SECONDS));
        new RotaTask<Integer>() {
            @Override
            protected Integer compute() {
                return 3;
            }
        }.fork().join();
        System.out.println("returning");
    }

    /**
     * Asks for the common pool at the bottom of a full stack, then one frame higher, and so on until
     * an attempt does not run out of stack: the first attempts fail inside the pool's making. A
     * regular pool is made first, so that every class the making needs is initialized already and
     * only the common pool's own first use is at stake.
     */
    private static void transientFailure() throws Exception {
        RotaPool.builder().workers(1).build().close();
        try {
            dive();
            System.out.println("first-use=ok");
        } catch (Throwable failure) {
            System.out.println("first-use=" + failure);
        }
        System.out.println("failed-while-building=" + failedWhileBuilding());
        CompletableFuture<Integer> later = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                later.complete(RotaPool.commonPool().submit(() -> 42).get(30, TimeUnit.SECONDS));
            } catch (Throwable t) {
                later.completeExceptionally(t);
            }
        }).join();
        try {
            System.out.println("later=" + later.get(30, TimeUnit.SECONDS));
        } catch (Exception e) {
            System.out.println("later=" + e.getCause());
        }
    }

    /** The overflows that attempts to use the common pool threw, kept without a call (which could overflow). */
    private static final StackOverflowError[] OVERFLOWS = new StackOverflowError[1 << 16];
    private static int overflows;

    private static void dive() {
        try {
            dive();
        } catch (StackOverflowError bottom) {
            try {
                RotaPool.commonPool();
            } catch (StackOverflowError attempt) {
                if (overflows < OVERFLOWS.length) {
                    OVERFLOWS[overflows++] = attempt;
                }
                throw attempt;                           // one frame up, which tries again
            }
        }
    }

    /** Whether an attempt ran out of stack while the common pool was being built, not before. */
    private static boolean failedWhileBuilding() {
        for (int i = 0; i < overflows; i++) {
            for (StackTraceElement frame : OVERFLOWS[i].getStackTrace()) {
                if (frame.getClassName().equals(RotaPool.Builder.class.getName()) && frame.getMethodName().equals("build")) {
                    return true;
                }
            }
        }
        return false;
    }
}
