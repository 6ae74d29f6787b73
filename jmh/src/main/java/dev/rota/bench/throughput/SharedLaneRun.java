package dev.rota.bench.throughput;

import dev.rota.RotaPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Two outside threads submitting tiny tasks to a two-worker {@code RotaPool}, started either on the
 * same inbox ({@code same}) or on different ones ({@code apart}); prints the tasks completed per
 * second after a warm-up. Not a JMH benchmark: JMH cannot choose its threads' ids, and the inbox an
 * outside thread starts on is a hash of its id, so the thread pairs are picked here by that hash
 * (the same formula as {@code SubmitterLanes.spread}). The work is ExternalSubmitBenchmark's: batches of
 * 1000 {@code execute} calls, each followed by a wait, with yields, for the batch's tasks to run.
 *
 * <pre>
 *   java --enable-native-access=ALL-UNNAMED -cp jmh/target/benchmarks.jar \
 *       dev.rota.bench.throughput.SharedLaneRun same|apart [seconds]
 * </pre>
 * with a JDK 25 {@code java}; or, through the toolchain as jmh/run.sh does, after building the jar:
 * <pre>
 *   mvn -q -f jmh/pom.xml validate exec:exec -Dbench.main=dev.rota.bench.throughput.SharedLaneRun \
 *       -Djmh.args="same"
 * </pre>
 */
public final class SharedLaneRun {
    private static final int BATCH = 1000;
    private static final long WARM_UP_NANOS = TimeUnit.SECONDS.toNanos(2);

    private SharedLaneRun() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || !(args[0].equals("same") || args[0].equals("apart"))) {
            throw new IllegalArgumentException("usage: SharedLaneRun same|apart [seconds]; got " + String.join(" ", args));
        }
        boolean same = args[0].equals("same");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 6;
        if (seconds < 3) {
            throw new IllegalArgumentException("seconds must be at least 3 (2 of them warm-up): " + seconds);
        }
        try (RotaPool pool = RotaPool.builder().workers(2).build()) {
            long[] completed = new long[2];
            Thread first = submitter(pool, seconds, completed, 0);
            Thread second = submitter(pool, seconds, completed, 1);
            while ((startingInbox(second.threadId()) == startingInbox(first.threadId())) != same) {
                second = submitter(pool, seconds, completed, 1);
            }
            first.start();
            second.start();
            first.join();
            second.join();
            double perSecond = (completed[0] + completed[1]) / (double) (seconds - 2);
            System.out.printf("%s: %.2f M tasks/s%n", args[0], perSecond / 1e6);
        }
    }

    /** The inbox of two that an outside thread starts on (SubmitterLanes.spread). */
    private static int startingInbox(long threadId) {
        int hash = (int) threadId * 0x9E3779B9;
        return (int) (((hash & 0xFFFF_FFFFL) * 2) >>> 32);
    }

    private static Thread submitter(RotaPool pool, long seconds, long[] completed, int slot) {
        return new Thread(() -> {
            LongAdder ran = new LongAdder();
            Runnable task = ran::increment;
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long submitted = 0;
            long atWarmUpEnd = -1;
            while (System.nanoTime() < end) {
                for (int i = 0; i < BATCH; i++) {
                    pool.execute(task);
                }
                submitted += BATCH;
                while (ran.sum() < submitted) {
                    Thread.yield();
                }
                if (atWarmUpEnd < 0 && System.nanoTime() - start >= WARM_UP_NANOS) {
                    atWarmUpEnd = submitted;
                }
            }
            completed[slot] = submitted - Math.max(0, atWarmUpEnd);
        }, "submitter-" + slot);
    }
}
