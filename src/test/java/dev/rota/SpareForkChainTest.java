package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import dev.rota.contract.Spares;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A spare thread has no deque: a fork there is offered to its group, and one the group refuses
 * (shut down, or its queue full) runs at once, in place. A chain of fire-and-forget forks (each
 * task forks the next and returns, as a task paging through a long list does) then ran each link
 * inside the one before, as deep on the stack as the chain is long, until a StackOverflowError
 * ended the chain: the links after it never ran. On a worker the same chain takes no stack at all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpareForkChainTest {
    /** Links of the chain: far more frames than a thread's stack holds. */
    private static final int LINKS = 100_000;

    /** One link: counts itself and forks the next, without waiting for it. */
    private static final class Link extends RotaTask<Void> {
        final int left;
        final AtomicInteger ran;
        final CountDownLatch last;
        final AtomicReference<Throwable> failure;

        Link(int left, AtomicInteger ran, CountDownLatch last, AtomicReference<Throwable> failure) {
            this.left = left;
            this.ran = ran;
            this.last = last;
            this.failure = failure;
        }

        @Override
        protected Void compute() {
            try {
                ran.incrementAndGet();
                if (left == 1) {
                    last.countDown();
                } else {
                    new Link(left - 1, ran, last, failure).fork();
                }
                return null;
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                throw t;
            }
        }
    }

    @Test
    void aLongChainOfForksOnASpareOfAShutDownGroupRunsToItsEnd() throws Exception {
        chainOnASpare(false);
    }

    @Test
    void aLongChainOfForksOnASpareOfAFullGroupRunsToItsEnd() throws Exception {
        chainOnASpare(true);
    }

    /** A fork that each link joins: counts the links from here to the end of the chain. */
    private static final class JoinedLink extends RotaTask<Integer> {
        final int left;

        JoinedLink(int left) {
            this.left = left;
        }

        @Override
        protected Integer compute() {
            if (left == 1) {
                return 1;
            }
            RotaTask<Integer> next = new JoinedLink(left - 1).fork();
            return next.join() + 1;
        }
    }

    /** Forks made past the bound on nesting are still there for the joins that wait for them. */
    @Test
    void aChainOfJoinedForksOnASpareOfAShutDownGroupCompletes() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            TaskGroup g = pool.group("g", 100);
            Future<Integer> outcome = startOnASpare(g, g::shutdown, () -> new JoinedLink(500).fork().join());
            assertEquals(500, outcome.get(Liveness.SECONDS, TimeUnit.SECONDS));
        } finally {
            releaseWorker.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /** A fork equal to any other of the same key, as a task with value semantics may be. */
    private static final class Keyed extends RotaTask<Integer> {
        final int key;
        final AtomicInteger ran;

        Keyed(int key, AtomicInteger ran) {
            this.key = key;
            this.ran = ran;
        }

        @Override
        protected Integer compute() {
            ran.incrementAndGet();
            return key;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Keyed k && k.key == key;
        }

        @Override
        public int hashCode() {
            return key;
        }
    }

    /**
     * Past the bound on nesting, a join on a spare takes its fork back from the deferred forks: that
     * very fork, not another one equal to it. Taking back an equal one (the newest) ran the joined
     * fork but removed the other, which then never ran: a join of it would wait for ever.
     */
    @Test
    void aJoinPastTheBoundTakesBackItsOwnForkNotAnEqualOne() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            TaskGroup g = pool.group("g", 100);
            AtomicInteger ran = new AtomicInteger();
            Keyed joined = new Keyed(7, ran);
            Keyed other = new Keyed(7, ran);
            class Nest extends RotaTask<Integer> {
                final int level;

                Nest(int level) {
                    this.level = level;
                }

                @Override
                protected Integer compute() {
                    if (level < 40) {                    // forks nested in place up to the bound, deferred past it
                        return new Nest(level + 1).fork().join();
                    }
                    joined.fork();                       // both deferred: the nesting is past the bound here
                    other.fork();
                    return joined.join();
                }
            }
            Future<Integer> outcome = startOnASpare(g, g::shutdown, () -> new Nest(1).fork().join());
            assertEquals(7, outcome.get(Liveness.SECONDS, TimeUnit.SECONDS));
            // The fork left unjoined runs once the in-place runs have unwound, within the task above.
            assertEquals(7, other.get(Liveness.SECONDS, TimeUnit.SECONDS), "the fork equal to the joined one never ran");
            assertEquals(2, ran.get());
        } finally {
            releaseWorker.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * Every fork that ran counts once as a completed task of its group and of the pool, whoever ran
     * it and whenever, as on a worker: on a spare of a shut-down group, the forks that run in place,
     * those deferred past the bound on nesting and run once the in-place runs have unwound, and those
     * deferred and taken back by their joins. Here 1 submitted task and 200 forks, 100 in each chain.
     */
    @Test
    void everyForkThatRanOnASpareCountsOnce() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            TaskGroup g = pool.group("g", 100);
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch last = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Future<Integer> outcome = startOnASpare(g, g::shutdown, () -> {
                new Link(100, ran, last, failure).fork(); // unjoined: in place, then deferred past the bound
                return new JoinedLink(100).fork().join(); // joined: in place, then taken back by the joins
            });
            assertEquals(100, outcome.get(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(100, ran.get(), "set-up: the unjoined chain ran " + ran.get() + " links");
            assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the shut-down group terminates");
            assertEquals(1 + 200, g.stats().completedTasks(), "tasks of g counted as completed");
            assertEquals(1 + 200, pool.completedTasks(), "tasks of the pool counted as completed (the blocked one is not)");
        } finally {
            releaseWorker.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * An endless chain on a spare, its group shut down, ends at the pool's shutdownNow(): the forks
     * that wait for the in-place runs to unwind are cancelled then, as a worker's leftover forks are.
     */
    @Test
    void anEndlessChainOfForksOnASpareEndsAtShutdownNow() throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            TaskGroup g = pool.group("g", 100);
            AtomicInteger ran = new AtomicInteger();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            startOnASpare(g, g::shutdown, () -> new Link(Integer.MAX_VALUE, ran, new CountDownLatch(1), failure).fork());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
            while (ran.get() < LINKS && failure.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertNull(failure.get(), "a link failed after " + ran.get() + " links");
            assertTrue(ran.get() >= LINKS, "set-up: the chain ran only " + ran.get() + " links");
            Liveness.within("shutdownNow", pool::shutdownNow);
            releaseWorker.countDown();
            Liveness.awaitTermination(pool);
        } finally {
            releaseWorker.countDown();
            pool.shutdownNow();
        }
    }

    /**
     * The only worker blocks, so a spare runs a task of group g that starts a chain once g refuses
     * forks: shut down, or (with {@code full}) holding as many queued tasks as its capacity.
     */
    private static void chainOnASpare(boolean full) throws Exception {
        RotaPool pool = RotaPool.builder().workers(1).pinning(false).build();
        CountDownLatch releaseWorker = new CountDownLatch(1);
        try {
            Spares.blockTheOnlyWorker(pool, releaseWorker);
            TaskGroup g = pool.group("g", 100);
            g.setQueueCapacity(1);
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch last = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Runnable refuse = full
                    ? () -> g.execute(() -> {})          // the queue is full now: nothing takes it meanwhile
                    : g::shutdown;
            startOnASpare(g, refuse, () -> new Link(LINKS, ran, last, failure).fork());
            boolean ended = last.await(Liveness.SECONDS, TimeUnit.SECONDS);
            assertNull(failure.get(), "a link failed after " + ran.get() + " links");
            assertTrue(ended, "the chain stopped after " + ran.get() + " of " + LINKS + " links");
            assertEquals(LINKS, ran.get());
        } finally {
            releaseWorker.countDown();
            Liveness.within("shutdownNow", pool::shutdownNow);
            Liveness.awaitTermination(pool);
        }
    }

    /**
     * Submits to {@code g} a task that waits, once started (on a spare, the only worker being
     * blocked), until {@code refuse} has made g refuse forks, then calls {@code start}.
     */
    private static <T> Future<T> startOnASpare(TaskGroup g, Runnable refuse, Callable<T> start) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch refusing = new CountDownLatch(1);
        Future<T> outcome = g.submit(() -> {
            started.countDown();
            refusing.await();
            return start.call();
        });
        Liveness.await(started, "the first task never started on the spare");
        refuse.run();
        refusing.countDown();
        return outcome;
    }
}
