package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ticket transfer along chains and cycles of waits, real ones (get() across groups) and loans from
 * {@code lendTo}: values move and come back exactly, a cycle is never made and never fails a wait,
 * and loans end with their groups and their pool.
 */
class TicketTransferChainsTest {
    private final RotaPool pool = RotaPool.builder().workers(2).build();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    /** Occupies both workers with tasks of a group of their own that wait for {@link #release}. */
    private void occupyEveryWorker() throws InterruptedException {
        TaskGroup blockers = pool.group("blockers", 1);
        CountDownLatch started = new CountDownLatch(pool.workers());
        for (int i = 0; i < pool.workers(); i++) {
            blockers.execute(() -> {
                started.countDown();
                Liveness.awaitQuietly(release);
            });
        }
        Liveness.await(started, "both workers occupied");
    }

    private static String values(TaskGroup... groups) {
        double[] v = new double[groups.length];
        for (int i = 0; i < groups.length; i++) {
            v[i] = groups[i].value();
        }
        return Arrays.toString(v);
    }

    /** Waits, a few seconds at most, until {@code actual} reads {@code expected}, and returns what it read last. */
    private static String awaitReading(String expected, Supplier<String> actual) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String seen = actual.get();
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(5);
            seen = actual.get();
        }
        return seen;
    }

    /** Waits, a few seconds at most, until {@code lender}'s only task waits and its value has gone to the group it waits on. */
    private static void awaitLent(TaskGroup lender) throws InterruptedException {
        String seen = awaitReading("0.0", () -> String.valueOf(lender.value()));
        if (!seen.equals("0.0")) {
            throw new AssertionError(lender.name() + " did not lend its value: it reads " + seen);
        }
    }

    /**
     * a lends to b, b to c; c's loan to a would close a cycle and is not made. Closing the loans in
     * either order gives every group and currency exactly the value it had before.
     */
    @Test
    void aChainOfLoansClosedInEitherOrderRestoresEveryValueExactly() throws Exception {
        occupyEveryWorker();
        Currency x = pool.baseCurrency().newCurrency("x", 7);
        Currency y = pool.baseCurrency().newCurrency("y", 13);
        TaskGroup a = x.newGroup("a", 3);
        TaskGroup a2 = x.newGroup("a2", 11);
        TaskGroup b = y.newGroup("b", 5);
        TaskGroup b2 = y.newGroup("b2", 17);
        TaskGroup c = x.newGroup("c", 19);
        TaskGroup[] all = {a, a2, b, b2, c};
        for (TaskGroup g : all) {
            g.execute(() -> {});                         // queued behind the blockers, so active
        }
        String before = values(all);
        double xBefore = x.value();
        double yBefore = y.value();
        for (boolean outerFirst : new boolean[] {true, false}) {
            Loan ab = a.lendTo(b);
            Loan bc = b.lendTo(c);
            Loan ca = c.lendTo(a);                       // would close a -> b -> c -> a: not made, no exception
            double sum = Arrays.stream(all).mapToDouble(TaskGroup::value).sum();
            assertEquals(20, sum, 1e-9, "loans move value, they create none: " + values(all));
            if (outerFirst) {
                ab.close();
                bc.close();
            } else {
                bc.close();
                ab.close();
            }
            ca.close();
            assertEquals(before, values(all));
            assertEquals(xBefore, x.value());
            assertEquals(yBefore, y.value());
        }
    }

    /**
     * a's task waits on b's, which waits on c's, which waits on a second task of a: the last loan
     * (c to a) would close a cycle and is not made; the waits complete, and meanwhile the running
     * task's group a holds its own value, the waiting ones nothing.
     *
     * <p>Which loan closes the cycle depends on the order in which the waits begin, so each task
     * goes on only once the wait before it has lent: b's once a's value has gone to b, c's once b's
     * has gone to c. Without that, a descheduled outer task could begin its wait last, and the
     * refused loan would be a's.
     */
    @Test
    void aCycleOfThreeGroupsWaitingOnEachOtherCompletesWithoutTheClosingLoan() throws Exception {
        TaskGroup a = pool.group("a", 100);
        TaskGroup b = pool.group("b", 200);
        TaskGroup c = pool.group("c", 400);
        CountDownLatch innerRuns = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Future<Integer> outer = a.submit(() -> b.submit(() -> {
            awaitLent(a);
            return c.submit(() -> {
                awaitLent(b);
                return a.submit(() -> {
                    innerRuns.countDown();
                    go.await();
                    return 1;
                }).get() + 1;
            }).get() + 1;
        }).get() + 1);
        Liveness.await(innerRuns, "a's inner task runs");
        String seen = awaitReading("[100.0, 0.0, 0.0]", () -> values(a, b, c));
        go.countDown();
        assertEquals(4, outer.get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals("[100.0, 0.0, 0.0]", seen);
    }

    /**
     * a waits on b, which waits on c: c runs with all three groups' tickets. a's timed wait ends
     * first: a has its own value again, and c keeps b's and its own.
     */
    @Test
    void aChainOfWaitsWhoseOuterWaitEndsFirst() throws Exception {
        TaskGroup a = pool.group("a", 100);
        TaskGroup b = pool.group("b", 200);
        TaskGroup c = pool.group("c", 400);
        CountDownLatch cRuns = new CountDownLatch(1);
        CountDownLatch cGo = new CountDownLatch(1);
        CountDownLatch aTimedOut = new CountDownLatch(1);
        CountDownLatch aGo = new CountDownLatch(1);
        CountDownLatch aWaits = new CountDownLatch(1);
        Future<Integer> bTask = b.submit(() -> c.submit(() -> {
            cRuns.countDown();
            cGo.await();
            return 1;
        }).get() + 1);
        Liveness.await(cRuns, "c runs");
        Future<Integer> outer = a.submit(() -> {
            try {
                aWaits.countDown();
                return bTask.get(aGo.await(Liveness.SECONDS, TimeUnit.SECONDS) ? 0 : 1, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                aTimedOut.countDown();
                aGo.await();
                return -1;
            }
        });
        Liveness.await(aWaits, "a runs");
        String during = awaitReading("[100.0, 0.0, 600.0]", () -> values(a, b, c));
        assertEquals("[100.0, 0.0, 600.0]", during, "a runs, b waits on c");
        cGo.countDown();
        assertEquals(2, bTask.get(Liveness.SECONDS, TimeUnit.SECONDS));
        aGo.countDown();
        outer.get(Liveness.SECONDS, TimeUnit.SECONDS);
    }

    /**
     * A task of a runs b's queued task in place, no spare being allowed (maxSpareThreads(0)), and
     * that task waits on c's running one: a's task waits on b's as surely as with a spare standing
     * in, so tickets follow the chain (README: "a waits on b, which waits on c: c runs with all three
     * groups' tickets"). a's tickets must not drop out while the run in its slice blocks.
     */
    @Test
    void aWaitInsideATaskRunInPlaceLendsTheOuterWaitersTicketsToo() throws Exception {
        try (RotaPool lean = RotaPool.builder().workers(2).maxSpareThreads(0).build()) {
            TaskGroup a = lean.group("a", 100);
            TaskGroup b = lean.group("b", 200);
            TaskGroup c = lean.group("c", 400);
            CountDownLatch cRuns = new CountDownLatch(1);
            CountDownLatch cGo = new CountDownLatch(1);
            Future<Integer> fromC = c.submit(() -> {
                cRuns.countDown();
                cGo.await();                             // a plain wait: c stays active on its worker
                return 1;
            });
            Liveness.await(cRuns, "c runs");
            CountDownLatch bRuns = new CountDownLatch(1);
            Future<Integer> fromA = a.submit(() -> b.submit(() -> {
                bRuns.countDown();                       // on a's thread: the other worker is c's, and no spare
                return fromC.get() + 1;
            }).get() + 1);
            Liveness.await(bRuns, "b's task runs in a's wait");
            // a's value falls to 0 once the run's wait on c pauses a's slice, after its loans are made.
            awaitReading("0.0", () -> String.valueOf(a.value()));
            String detail = values(a, b, c);
            double sum = a.value() + b.value() + c.value();
            cGo.countDown();
            assertEquals(3, fromA.get(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals("0.0", detail.substring(1, detail.indexOf(',')), "a's only task waits: " + detail);
            assertEquals(700, sum, 1e-9, "a's 100 tickets went missing while its wait's run waited on c: " + detail);
            for (TaskGroup g : List.of(a, b, c)) {
                assertEquals(List.of(), lean.dispatcher().read(() -> g.core.client().loans()), g.name());
            }
        }
    }

    /** A loan outliving its pool: ended by the pool's termination; closing it twice, from any thread, changes nothing. */
    @Test
    void aLoanEndsWithItsPool() throws Exception {
        occupyEveryWorker();
        TaskGroup a = pool.group("a", 100);
        TaskGroup b = pool.group("b", 200);
        b.execute(() -> {});
        Loan loan = a.lendTo(b);
        assertEquals(300, b.value(), 1e-9);
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
        assertEquals("loan of a's tickets to b (ended)", loan.toString());
        Thread closer = Thread.ofPlatform().start(loan::close);
        closer.join();
        loan.close();
        assertEquals(0, b.value());
        assertThrows(NullPointerException.class, () -> a.lendTo(null));
        try (Loan late = a.lendTo(b)) {
            assertEquals("loan of a's tickets to b (ended)", late.toString());
        }
    }

    /** A loan follows its lender's ticket and funding changes, also along a chain. */
    @Test
    void loansFollowTicketAndFundingChanges() throws Exception {
        occupyEveryWorker();
        Currency x = pool.baseCurrency().newCurrency("x", 1000);
        Currency reserve = pool.baseCurrency().newCurrency("reserve", 500);
        TaskGroup a = x.newGroup("a", 300);
        TaskGroup b = pool.group("b", 10);
        TaskGroup c = pool.group("c", 20);
        a.execute(() -> {});
        b.execute(() -> {});
        c.execute(() -> {});
        try (Loan ab = a.lendTo(b); Loan bc = b.lendTo(c)) {
            assertEquals("[500.0, 255.0, 275.0]", values(a, b, c));
            a.setTickets(Long.MAX_VALUE / 4);            // a's currency is worth 1000 whatever its amount
            assertEquals("[500.0, 255.0, 275.0]", values(a, b, c));
            try (Funding extra = x.fundFrom(reserve, 5)) {
                assertEquals("[750.0, 380.0, 400.0]", values(a, b, c));
            }
        }
        assertEquals("[1000.0, 10.0, 20.0]", values(a, b, c));
    }

    /** Random nested waits across four groups, cycles included, with lendTo loans beside them: none is left over. */
    @Test
    void randomCrossGroupWaitsAndLoansLeaveNoLoanBehind() throws Exception {
        for (int spares : new int[] {0, 1, 8}) {
            try (RotaPool busy = RotaPool.builder().workers(2).maxSpareThreads(spares).build()) {
                TaskGroup[] groups = new TaskGroup[4];
                for (int i = 0; i < groups.length; i++) {
                    groups[i] = busy.group("g" + i, 10L << i);
                }
                List<Future<Integer>> outers = new ArrayList<>();
                for (int n = 0; n < 200; n++) {
                    outers.add(groups[ThreadLocalRandom.current().nextInt(groups.length)].submit(nested(groups, 3)));
                }
                Thread lender = Thread.ofPlatform().start(() -> {
                    for (int n = 0; n < 2000; n++) {
                        TaskGroup from = groups[ThreadLocalRandom.current().nextInt(groups.length)];
                        TaskGroup to = groups[ThreadLocalRandom.current().nextInt(groups.length)];
                        if (from != to) {
                            from.lendTo(to).close();
                        }
                    }
                });
                for (Future<Integer> outer : outers) {
                    outer.get(Liveness.SECONDS, TimeUnit.SECONDS);
                }
                lender.join();
                for (TaskGroup g : groups) {
                    assertEquals(List.of(), busy.dispatcher().read(() -> g.core.client().loans()), g.name());
                }
            }
        }
    }

    private static Callable<Integer> nested(TaskGroup[] groups, int depth) {
        return () -> {
            if (depth == 0) {
                return 1;
            }
            List<Future<Integer>> inner = new ArrayList<>();
            for (int i = ThreadLocalRandom.current().nextInt(3); i > 0; i--) {
                inner.add(groups[ThreadLocalRandom.current().nextInt(groups.length)].submit(nested(groups, depth - 1)));
            }
            int sum = 1;
            for (Future<Integer> f : inner) {
                sum += f.get();
            }
            return sum;
        };
    }
}
