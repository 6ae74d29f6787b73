package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Task groups and currencies as a user sees them: validation, life cycle, overload, views, figures. */
class TaskGroupTest {
    private final RotaPool pool = RotaPool.builder().workers(2).build();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    private static String rejectionOf(Runnable action) {
        return assertThrows(IllegalArgumentException.class, action::run).getMessage();
    }

    /** Occupies both workers with tasks of a group of their own that wait for {@link #release}. */
    private void occupyEveryWorker() throws InterruptedException {
        TaskGroup blockers = pool.group("blockers", 1);
        CountDownLatch started = new CountDownLatch(pool.workers());
        for (int i = 0; i < pool.workers(); i++) {
            blockers.execute(() -> {
                started.countDown();
                awaitRelease();
            });
        }
        Liveness.await(started, "both workers occupied");
    }

    private void awaitRelease() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void badTicketsAndNamesAreRejectedNamingTheValue() {
        assertTrue(rejectionOf(() -> pool.group("zero", 0)).contains("0"));
        assertTrue(rejectionOf(() -> pool.group("negative", -5)).contains("-5"));
        assertTrue(rejectionOf(() -> pool.group(" ", 1)).contains("blank"));
        pool.group("gold", 300);
        assertTrue(rejectionOf(() -> pool.group("gold", 1)).contains("gold"));
        pool.group("huge", Long.MAX_VALUE - 1_000);
        String overflow = rejectionOf(() -> pool.group("more", 5_000));
        assertTrue(overflow.contains("5000") && overflow.contains("overflow"), overflow);
        TaskGroup gold = pool.groups().get(1);
        assertTrue(rejectionOf(() -> gold.setTickets(-1)).contains("-1"));
        assertThrows(NullPointerException.class, () -> pool.group(null, 1));
    }

    @Test
    void aFundingCycleIsRejectedNamingTheCycle() {
        Currency a = pool.baseCurrency().newCurrency("A", 10);
        Currency b = a.newCurrency("B", 10);
        Currency c = b.newCurrency("C", 10);
        String message = rejectionOf(() -> a.fundFrom(c, 5));
        assertTrue(message.contains("A -> B -> C -> A"), message);
        assertTrue(rejectionOf(() -> pool.baseCurrency().fundFrom(a, 1)).contains("base"));
        try (RotaPool other = RotaPool.builder().workers(1).build()) {
            assertTrue(rejectionOf(() -> a.fundFrom(other.baseCurrency(), 1)).contains("another pool"));
        }
        Funding extra = c.fundFrom(a, 5);
        assertEquals(5, extra.tickets());
        extra.setTickets(7);
        assertEquals(7, extra.tickets());
        extra.withdraw();
        assertEquals(0, extra.tickets(), "a withdrawn funding backs nothing");
        assertThrows(IllegalArgumentException.class, extra::withdraw);
    }

    @Test
    void aCurrencysOwnBackingCanBeReweightedAndWithdrawn() throws Exception {
        occupyEveryWorker();
        Currency reserve = pool.baseCurrency().newCurrency("reserve", 300);
        Currency tenants = pool.baseCurrency().newCurrency("tenants", 100);
        TaskGroup t1 = tenants.newGroup("t1", 1);
        t1.execute(() -> {});
        List<Funding> made = tenants.fundings();
        assertEquals(1, made.size());
        Funding initial = made.getFirst();
        assertEquals(pool.baseCurrency(), initial.source());
        assertEquals(tenants, initial.currency());
        assertEquals(100, initial.tickets());

        initial.setTickets(40);
        assertEquals(40, t1.value(), 1e-9, "the tickets a currency was made with can be re-weighted");
        Funding boost = tenants.fundFrom(reserve, 30);
        assertEquals(List.of(initial, boost), tenants.fundings(), "oldest first, equal to the funding made");
        assertEquals(reserve, tenants.fundings().get(1).source());
        assertEquals(40 + 300, t1.value(), 1e-9);

        try (Funding closing = boost) {
            assertEquals(30, closing.tickets());
        }
        assertEquals(0, boost.tickets());
        boost.close();                                   // harmless the second time
        assertEquals(List.of(initial), tenants.fundings());
        initial.withdraw();
        assertEquals(List.of(), tenants.fundings());
        assertEquals(0, tenants.value(), "a currency without backing is worth nothing");
        assertEquals(List.of(), pool.baseCurrency().fundings());
    }

    @Test
    void aCurrencyIsRetiredOnlyOnceItFundsNothingAndItsNameIsFreeAgain() throws Exception {
        Currency partners = pool.baseCurrency().newCurrency("partners", 50);
        Currency tenants = pool.baseCurrency().newCurrency("tenants", 100);
        Funding extra = tenants.fundFrom(partners, 10);
        TaskGroup t1 = tenants.newGroup("t1", 1);
        Currency sub = tenants.newCurrency("sub", 5);

        String busy = assertThrows(IllegalStateException.class, tenants::retire).getMessage();
        assertTrue(busy.contains("t1") && busy.contains("sub"), busy);
        assertFalse(tenants.isRetired());
        assertEquals(6, tenants.issuedTickets(), "a refused retirement changes nothing");
        assertEquals(10, extra.tickets());

        t1.shutdown();
        assertTrue(t1.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        sub.retire();
        tenants.retire();
        assertTrue(tenants.isRetired());
        assertEquals(0, extra.tickets(), "its backing is withdrawn");
        assertEquals(0, partners.issuedTickets());
        assertEquals(List.of(), tenants.fundings());
        extra.close();                                   // already withdrawn with the currency: harmless

        assertEquals("currency tenants was retired", rejectionOf(() -> tenants.newGroup("t2", 1)));
        assertEquals("currency tenants was retired", rejectionOf(() -> tenants.fundFrom(partners, 1)));
        assertEquals("source tenants was retired", rejectionOf(() -> partners.fundFrom(tenants, 1)));
        assertEquals("currency tenants was retired", rejectionOf(tenants::retire));
        assertTrue(rejectionOf(() -> pool.baseCurrency().retire()).contains("base"));
        assertEquals("tenants", partners.newCurrency("tenants", 1).name(), "the name is free again");
    }

    @Test
    void ticketsValuesAndCurrencyFiguresFollowActivity() throws Exception {
        occupyEveryWorker();
        Currency tenants = pool.baseCurrency().newCurrency("tenants", 100);
        TaskGroup t1 = tenants.newGroup("t1", 10);
        TaskGroup t2 = tenants.newGroup("t2", 30);
        assertEquals(0, t1.value(), "a group without work is inactive");
        t1.execute(() -> {});
        assertEquals(100, t1.value(), 1e-9);
        t2.execute(() -> {});
        assertEquals(25, t1.value(), 1e-9);
        assertEquals(75, t2.value(), 1e-9);
        assertEquals(100, tenants.value(), 1e-9);
        assertEquals(40, tenants.activeTickets());
        assertEquals(40, tenants.issuedTickets());
        t2.setTickets(90);
        assertEquals(90, t2.tickets());
        assertEquals(10, t1.value(), 1e-9, "inflation inside a currency dilutes only its groups");
        assertSame(tenants, t1.currency());
    }

    @Test
    void shutdownEndsOneGroupOnlyAndItsNameCanBeUsedAgain() throws Exception {
        TaskGroup gold = pool.group("gold", 3);
        TaskGroup bronze = pool.group("bronze", 1);
        Future<Integer> queued = gold.submit(() -> 1);
        gold.shutdown();
        assertTrue(gold.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> gold.execute(() -> {}));
        assertEquals(1, queued.get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(gold.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(2, bronze.submit(() -> 2).get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(3, pool.submit(() -> 3).get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertFalse(pool.groups().contains(gold), "a terminated group leaves the pool");
        TaskGroup again = pool.group("gold", 5);
        assertEquals(4, again.submit(() -> 4).get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(1, gold.stats().rejectedTasks());
    }

    @Test
    void shutdownNowReturnsTheGroupsQueuedTasksAndInterruptsOnlyItsOwn() throws Exception {
        TaskGroup victim = pool.group("victim", 1);
        TaskGroup bystander = pool.group("bystander", 1);
        CountDownLatch bothRunning = new CountDownLatch(2);
        AtomicBoolean victimInterrupted = new AtomicBoolean();
        AtomicBoolean bystanderInterrupted = new AtomicBoolean();
        CountDownLatch bystanderDone = new CountDownLatch(1);
        victim.execute(() -> {
            bothRunning.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                victimInterrupted.set(true);
            }
        });
        bystander.execute(() -> {
            bothRunning.countDown();
            while (release.getCount() > 0) {     // busy, not blocked, until the checks are made
                if (Thread.currentThread().isInterrupted()) {
                    bystanderInterrupted.set(true);
                }
            }
            bystanderDone.countDown();
        });
        Liveness.await(bothRunning, "one task of each group running");
        List<Runnable> queued = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Runnable task = new Runnable() {             // a distinct object each time, unlike a lambda capturing nothing
                @Override
                public void run() {}
            };
            queued.add(task);
            victim.execute(task);
        }
        List<Runnable> returned = victim.shutdownNow();
        Map<Runnable, Boolean> identity = new IdentityHashMap<>();
        returned.forEach(task -> assertTrue(identity.put(task, true) == null, "returned twice: " + task));
        assertEquals(queued.size(), returned.size());
        assertTrue(identity.keySet().containsAll(queued));
        assertTrue(victim.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(victimInterrupted.get(), "the group's running task was interrupted");
        release.countDown();
        Liveness.await(bystanderDone, "the other group's task");
        assertFalse(bystanderInterrupted.get(), "another group's task was interrupted");
        assertTrue(victim.shutdownNow().isEmpty());
        assertFalse(bystander.isShutdown());
    }

    @Test
    void aFullQueueRejectsByPolicyAndCountsIt() throws Exception {
        occupyEveryWorker();
        TaskGroup small = pool.group("small", 1);
        small.setQueueCapacity(2);
        assertEquals(2, small.queueCapacity());
        small.execute(() -> {});
        small.execute(() -> {});
        String message = assertThrows(RejectedExecutionException.class, () -> small.execute(() -> {})).getMessage();
        assertTrue(message.contains("small") && message.contains("capacity 2"), message);
        small.setQueueCapacity(1);                       // below what is queued: the message names the bound, not a count
        message = assertThrows(RejectedExecutionException.class, () -> small.execute(() -> {})).getMessage();
        assertTrue(message.contains("capacity 1"), message);
        small.setQueueCapacity(2);
        small.setRejectionPolicy(RejectionPolicy.CALLER_RUNS);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        small.execute(() -> ranOn.set(Thread.currentThread()));
        assertSame(Thread.currentThread(), ranOn.get());
        GroupStats stats = small.stats();
        assertEquals(3, stats.rejectedTasks());
        assertEquals(2, stats.queuedTasks());
        assertTrue(rejectionOf(() -> small.setQueueCapacity(0)).contains("0"));
        assertThrows(NullPointerException.class, () -> small.setRejectionPolicy(null));
        release.countDown();
        Liveness.awaitCondition(() -> small.stats().completedTasks() == 2, "the two queued tasks to run");
    }

    /**
     * A group may shut down between the full queue's answer and the policy's call: CALLER_RUNS then
     * refuses the task as the shut-down group would, rather than run a task submitted to a group that
     * is shut down (ThreadPoolExecutor's CallerRunsPolicy would discard it silently).
     */
    @Test
    void callerRunsRefusesATaskOfAGroupShutDownMeanwhile() {
        TaskGroup closed = pool.group("closed", 1);
        closed.shutdown();
        AtomicBoolean ran = new AtomicBoolean();
        String message = assertThrows(RejectedExecutionException.class,
                () -> RejectionPolicy.CALLER_RUNS.rejected(() -> ran.set(true), closed)).getMessage();
        assertTrue(message.contains("closed") && message.contains("shut down"), message);
        assertFalse(ran.get(), "the task of a shut-down group ran");
    }

    @Test
    void aSubmitOnlyViewSubmitsAndNothingElse() throws Exception {
        TaskGroup tenant = pool.group("tenant", 10);
        ExecutorService view = tenant.submitOnly();
        assertFalse(view instanceof TaskGroup);
        assertEquals(5, view.submit(() -> 5).get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(List.of(1, 2), view.invokeAll(List.of(() -> 1, () -> 2)).stream().map(f -> {
            try {
                return f.get();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).toList());
        assertThrows(UnsupportedOperationException.class, view::shutdown);
        assertThrows(UnsupportedOperationException.class, view::shutdownNow);
        assertThrows(UnsupportedOperationException.class, view::close);
        assertFalse(tenant.isShutdown());
        tenant.shutdown();
        assertTrue(view.isShutdown());
        assertTrue(view.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertThrows(RejectedExecutionException.class, () -> view.execute(() -> {}));
    }

    @Test
    void statsCountTasksAndChargeTheirTime() throws Exception {
        TaskGroup measured = pool.group("measured", 1);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            futures.add(measured.submit(() -> Backlog.spin(50_000)));
        }
        for (Future<?> future : futures) {
            future.get(Liveness.SECONDS, TimeUnit.SECONDS);
        }
        measured.shutdown();
        assertTrue(measured.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        GroupStats stats = measured.stats();
        assertEquals("measured", stats.name());
        assertEquals(100, stats.completedTasks());
        assertEquals(0, stats.queuedTasks());
        assertTrue(stats.cpuTimeNanos() >= 100 * 50_000L, "charged " + stats.cpuTimeNanos() + " ns for 5 ms of work");
        assertTrue(stats.slices() >= 1 && stats.longestSliceNanos() > 0);
    }

    @Test
    @SuppressWarnings("try")   // the loan is closed inside its try on purpose: closing twice is part of the test
    void loansMoveTheLendersValueToTheBorrower() throws Exception {
        occupyEveryWorker();
        TaskGroup client = pool.group("client", 300);
        TaskGroup server = pool.group("server", 10);
        server.execute(() -> {});                        // queued, so active
        assertEquals(10, server.value(), 1e-9);
        try (Loan loan = client.lendTo(server)) {
            assertSame(client, loan.lender());
            assertEquals(310, server.value(), 1e-9);
            try (Loan second = client.lendTo(server)) {
                assertEquals(310, server.value(), 1e-9, "two loans share the client's 300: a loan creates no value");
                assertNotNull(second.toString());
            }
            loan.close();
            loan.close();                                // a second close changes nothing
            assertEquals(10, server.value(), 1e-9);
        }
        assertTrue(rejectionOf(() -> client.lendTo(client)).contains("itself"));
        try (RotaPool other = RotaPool.builder().workers(1).build()) {
            TaskGroup stranger = other.group("stranger", 1);
            assertTrue(rejectionOf(() -> client.lendTo(stranger)).contains("another pool"));
        }
    }

    @Test
    void aCpuOutsideThePoolIsRejectedByNumber() {
        TaskGroup group = pool.group("placed", 1);
        int stranger = 100_000;
        String message = rejectionOf(() -> group.restrictToCpus(stranger));
        assertTrue(message.contains("100000"), message);
        assertThrows(IllegalArgumentException.class, group::restrictToCpus);
        int cpu = pool.topology().workers().get(0).cpu();
        group.restrictToCpus(cpu);
        assertEquals(cpu, group.cpus()[0]);
        group.allowAllCpus();
        assertEquals(pool.topology().workers().stream().map(CpuTopology.WorkerPlacement::cpu).distinct().count(),
                group.cpus().length);
    }

    @Test
    void aCpuNamedTwiceIsRejectedByNumber() {
        TaskGroup group = pool.group("placed", 1);
        int cpu = pool.topology().workers().get(0).cpu();
        String message = rejectionOf(() -> group.restrictToCpus(cpu, cpu));
        assertTrue(message.contains("CPU " + cpu + " is named twice"), message);
        assertEquals(pool.topology().workers().stream().map(CpuTopology.WorkerPlacement::cpu).distinct().count(),
                group.cpus().length, "a refused restriction changes nothing");
    }

    @Test
    void aTerminatedGroupsPlacementCannotChange() throws Exception {
        TaskGroup group = pool.group("ended", 1);
        group.shutdown();
        assertTrue(group.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        int cpu = pool.topology().workers().get(0).cpu();
        String message = assertThrows(IllegalStateException.class, () -> group.restrictToCpus(cpu)).getMessage();
        assertTrue(message.contains("ended") && message.contains("terminated"), message);
        assertThrows(IllegalStateException.class, group::allowAllCpus);
        assertThrows(IllegalStateException.class, () -> group.setTickets(2));
        assertThrows(IllegalStateException.class, () -> group.setQueueCapacity(5));
    }

    /** As newCurrency after the pool's shutdown: a funding made then could back no task. */
    @Test
    void aFundingIsRefusedOnceThePoolIsShutDown() {
        Currency tenants = pool.baseCurrency().newCurrency("tenants", 10);
        Currency partners = pool.baseCurrency().newCurrency("partners", 10);
        pool.shutdown();

        String message = assertThrows(RejectedExecutionException.class,
                () -> tenants.fundFrom(partners, 5)).getMessage();

        assertTrue(message.contains("shut down") && message.contains("tenants"), message);
        assertEquals(0, partners.issuedTickets(), "nothing funded");
    }

    /** As ThreadPoolExecutor's: the run state and the counts, which a log line of the group should carry. */
    @Test
    void toStringGivesTheRunStateAndTheCounts() throws Exception {
        TaskGroup group = pool.group("logged", 1);
        assertEquals("group logged of pool " + pool.name() + "[Running, queued = 0, completed = 0, rejected = 0,"
                + " slices = 0]", group.toString());
        occupyEveryWorker();
        group.execute(() -> { });
        group.execute(() -> { });
        group.shutdown();
        assertTrue(group.toString().startsWith("group logged of pool " + pool.name() + "[Shutting down, queued = 2,"),
                group.toString());
        release.countDown();
        assertTrue(group.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(group.toString().startsWith("group logged of pool " + pool.name() + "[Terminated, queued = 0,"
                + " completed = 2, rejected = 0, slices = "), group.toString());
        TaskGroup stopped = pool.group("stopped", 1);
        stopped.shutdownNow();
        assertTrue(stopped.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(stopped.toString().contains("[Terminated,"), stopped.toString());
    }

    /** The default group ends with its pool: shutting down while the pool's delayed tasks wait, as the pool says. */
    @Test
    void theDefaultGroupShutsDownWithItsPool() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).build()) {
            ScheduledFuture<?> later = one.schedule(() -> { }, 1, TimeUnit.HOURS);
            one.shutdown();
            assertTrue(one.toString().contains("[Shutting down,"), one.toString());
            assertTrue(one.defaultGroup().toString().contains("[Shutting down,"), one.defaultGroup().toString());
            later.cancel(false);
            assertTrue(one.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertTrue(one.defaultGroup().toString().contains("[Terminated,"), one.defaultGroup().toString());
        }
    }

    @Test
    void poolShutdownShutsEveryGroupAndRefusesNewOnes() throws Exception {
        TaskGroup gold = pool.group("gold", 3);
        Future<Integer> queued = gold.submit(() -> 7);
        assertEquals(List.of("default", "gold"), pool.groups().stream().map(TaskGroup::name).toList());
        assertSame(pool.defaultGroup(), pool.groups().getFirst());
        pool.shutdown();
        assertTrue(gold.isShutdown());
        assertTrue(pool.defaultGroup().isShutdown());
        assertThrows(RejectedExecutionException.class, () -> gold.execute(() -> {}));
        assertThrows(RejectedExecutionException.class, () -> pool.group("late", 1));
        String refusal = assertThrows(RejectedExecutionException.class,
                () -> pool.baseCurrency().newCurrency("late-currency", 1)).getMessage();
        assertTrue(refusal.contains("late-currency"), refusal);
        assertEquals(7, queued.get(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(gold.isTerminated());
    }

    @Test
    void tasksForkedInAGroupAreTheGroupsWork() throws Exception {
        TaskGroup forking = pool.group("forking", 1);
        final class Sum extends RotaTask<Long> {
            final int lo;
            final int hi;

            Sum(int lo, int hi) {
                this.lo = lo;
                this.hi = hi;
            }

            @Override
            protected Long compute() {
                if (hi - lo <= 1_000) {
                    long s = 0;
                    for (int i = lo; i < hi; i++) {
                        s += i;
                    }
                    return s;
                }
                int mid = (lo + hi) >>> 1;
                Sum left = new Sum(lo, mid);
                left.fork();
                return new Sum(mid, hi).compute() + left.join();
            }
        }
        Sum sum = new Sum(0, 1_000_000);
        assertSame(sum, forking.submit(sum));
        assertEquals(499_999_500_000L, sum.get(Liveness.SECONDS, TimeUnit.SECONDS));
        forking.shutdown();
        assertTrue(forking.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertTrue(forking.stats().completedTasks() >= 1);
        assertTrue(forking.stats().cpuTimeNanos() > 0);
        assertEquals(0, pool.defaultGroup().stats().completedTasks(), "a fork ran as the default group's task");
        assertEquals(0, pool.defaultGroup().stats().cpuTimeNanos(), "a fork's time was charged to the default group");
        assertInstanceOf(GroupStats.class, pool.snapshot().groups().getFirst());
    }

    /** A snapshot diff over a window in which a group ended and a new one took its name. */
    @Test
    void snapshotsTellApartTwoGroupsOfOneName() throws Exception {
        TaskGroup first = pool.group("reports", 1);
        for (int i = 0; i < 10; i++) {
            first.submit(() -> {}).get(Liveness.SECONDS, TimeUnit.SECONDS);
        }
        assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS)); // a task counts once it has returned
        PoolSnapshot before = pool.snapshot();
        first.shutdown();
        assertTrue(first.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        TaskGroup second = pool.group("reports", 1);
        second.submit(() -> {}).get(Liveness.SECONDS, TimeUnit.SECONDS);
        assertTrue(pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS));
        PoolSnapshot after = pool.snapshot();

        assertTrue(second.id() > first.id(), second.id() + " after " + first.id());
        assertEquals(10, before.group(first).orElseThrow().completedTasks());
        assertEquals(first.id(), before.group("reports").orElseThrow().id());
        assertTrue(after.group(first).isEmpty(), "the first group had terminated");
        assertTrue(before.group(second).isEmpty(), "the second group did not exist yet");
        GroupStats now = after.group(second).orElseThrow();
        assertEquals(second.id(), now.id());
        assertEquals(1, now.completedTasks());
        assertEquals(second.id(), second.stats().id());

        try (RotaPool other = RotaPool.builder().workers(1).build()) {
            TaskGroup foreign = other.group("reports", 1);
            assertTrue(after.group(foreign).isEmpty(), "a group of another pool is not in this snapshot");
            assertTrue(after.group(other.defaultGroup()).isEmpty());
            assertTrue(foreign.id() != second.id() && other.defaultGroup().id() != pool.defaultGroup().id());
        }
    }

    /** A snapshot refuses null input naming it, as the rest of the API does; a null name is no group's. */
    @Test
    void aSnapshotRefusesNullsNamingThem() {
        List<GroupStats> groups = pool.snapshot().groups();
        List<WorkerStats> workers = pool.snapshot().workers();
        assertEquals("groups", assertThrows(NullPointerException.class,
                () -> new PoolSnapshot(0, null, workers)).getMessage());
        assertEquals("workers", assertThrows(NullPointerException.class,
                () -> new PoolSnapshot(0, groups, null)).getMessage());
        List<GroupStats> withNull = new ArrayList<>(groups);
        withNull.add(null);
        assertEquals("groups[" + groups.size() + "]", assertThrows(NullPointerException.class,
                () -> new PoolSnapshot(0, withNull, workers)).getMessage());
        assertEquals("name", assertThrows(NullPointerException.class,
                () -> pool.snapshot().group((String) null)).getMessage());
        assertEquals("group", assertThrows(NullPointerException.class,
                () -> pool.snapshot().group((TaskGroup) null)).getMessage());
    }

    /**
     * A null task among those given to invokeAll is refused with a NullPointerException naming it,
     * as invokeAny and submit name theirs (the JDK's pools throw one without a message).
     */
    @Test
    void invokeAllRefusesANullTaskNamingIt() {
        TaskGroup gold = pool.group("gold", 1);
        List<Callable<Integer>> tasks = Arrays.asList(() -> 1, null);
        for (ExecutorService executor : List.of(pool, gold, gold.submitOnly())) {
            assertEquals("task", assertThrows(NullPointerException.class, () -> executor.invokeAll(tasks)).getMessage(),
                    executor.toString());
            assertEquals("task", assertThrows(NullPointerException.class,
                    () -> executor.invokeAll(tasks, 1, TimeUnit.SECONDS)).getMessage(), executor.toString());
        }
    }

    /**
     * The default group ends with its pool: shutting it down alone would leave a pool that refuses
     * every submission and cancels its due delayed tasks while it says it is not shut down.
     */
    @Test
    void theDefaultGroupCannotBeShutDownAlone() throws Exception {
        TaskGroup defaultGroup = pool.defaultGroup();
        assertThrows(UnsupportedOperationException.class, defaultGroup::shutdown);
        assertThrows(UnsupportedOperationException.class, defaultGroup::shutdownNow);
        assertTrue(assertThrows(UnsupportedOperationException.class, defaultGroup::close).getMessage()
                .contains("cannot close alone"), "the message names the operation refused");
        assertThrows(UnsupportedOperationException.class, () -> RotaPool.commonPool().defaultGroup().shutdownNow());
        assertFalse(defaultGroup.isShutdown());
        assertEquals(2, pool.submit(() -> 2).get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /** "A loan from or to a group that has terminated lends nothing": the lender's termination ends its loans. */
    @Test
    void aLoanFromATerminatedGroupLendsNothing() throws Exception {
        occupyEveryWorker();
        TaskGroup lender = pool.group("lender", 300);
        TaskGroup borrower = pool.group("borrower", 10);
        borrower.execute(() -> {});                      // queued, so active
        try (Loan loan = lender.lendTo(borrower)) {
            assertEquals(310, borrower.value(), 1e-9);
            lender.shutdown();
            assertTrue(lender.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(10, borrower.value(), 1e-9,
                    "the terminated lender's 300 tickets still compete for the borrower, until close()");
        }
    }

    /**
     * A loan never closed ends with its borrower: once the borrower has terminated, the lender's
     * value is all its own again, as if the loan were closed, and closing it then changes nothing.
     */
    @Test
    void aLoanToATerminatedGroupEndsWithIt() throws Exception {
        occupyEveryWorker();
        TaskGroup lender = pool.group("lender", 300);
        TaskGroup borrower = pool.group("borrower", 10);
        lender.execute(() -> {});                        // queued, so both active
        borrower.execute(() -> {});
        Loan loan = lender.lendTo(borrower);
        assertEquals(150, lender.value(), 1e-9, "the lender's 300 split between its own work and the loan");
        assertEquals(160, borrower.value(), 1e-9);
        assertEquals("loan of lender's tickets to borrower", loan.toString());

        assertEquals(1, borrower.shutdownNow().size());
        assertTrue(borrower.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals("loan of lender's tickets to borrower (ended)", loan.toString());
        assertEquals(300, lender.value(), 1e-9, "the loan to the terminated borrower still takes part of the lender's value");
        assertEquals(0, borrower.value());

        loan.close();
        assertEquals(300, lender.value(), 1e-9, "closing a loan whose borrower has terminated changes nothing");
        assertEquals(300, lender.stats().value(), 1e-9);
    }

    /**
     * Ticket transfer is a side effect of Future.get(): it never makes get() throw, whatever the
     * tickets (here half of all longs, a valid amount).
     */
    @Test
    void aCrossGroupGetNeverFailsForTicketArithmetic() throws Exception {
        TaskGroup big = pool.group("big", Long.MAX_VALUE / 2);
        TaskGroup other = pool.group("other", 1);
        Future<Object> outcome = big.submit(() -> {
            Future<Integer> slow = other.submit(() -> {
                Thread.sleep(200);
                return 42;
            });
            try {
                return slow.get();
            } catch (Throwable t) {
                return t;
            }
        });
        assertEquals(42, outcome.get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /**
     * Two groups whose tasks wait on each other's: a's task waits on b's, which waits on a task of
     * a. The second loan would close a cycle of loans; it is not made, and both waits complete.
     */
    @Test
    void waitsBothWaysBetweenTwoGroupsCompleteWithoutACycleOfLoans() throws Exception {
        TaskGroup a = pool.group("a", 100);
        TaskGroup b = pool.group("b", 100);
        Future<Integer> outer = a.submit(() -> b.submit(() -> a.submit(() -> 7).get() * 6).get());
        assertEquals(42, outer.get(Liveness.SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A group's queue holds at most its capacity in tasks waiting for a worker, and each worker's
     * batch of at most 64 taken into its own queue (TaskGroup.queueCapacity()).
     */
    @Test
    void aGroupQueuesAtMostItsCapacityAndABatchPerWorker() throws Exception {
        TaskGroup bounded = pool.group("bounded", 1);
        bounded.setQueueCapacity(10);
        occupyEveryWorker();
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 10; i++) {
            bounded.execute(() -> {
                started.countDown();
                awaitRelease();
            });
        }
        // Free both workers (interrupting the blockers): they take bounded's tasks and block in two of them.
        TaskGroup blockers = pool.groups().stream().filter(g -> g.name().equals("blockers")).findFirst().orElseThrow();
        blockers.shutdownNow();
        Liveness.await(started, "both workers in bounded's tasks");
        int accepted = 0;
        for (int i = 0; i < 1_000; i++) {
            try {
                bounded.execute(() -> {});
                accepted++;
            } catch (RejectedExecutionException full) {
                break;
            }
        }
        long queued = bounded.stats().queuedTasks();
        assertTrue(queued <= 10 + 64L * pool.workers(), "capacity 10, but " + queued + " tasks queued (8 before + "
                + accepted + " accepted while both workers ran bounded's tasks)");
    }

    /**
     * shutdown() lets accepted tasks run to completion, forks included, as ForkJoinPool does: a
     * fork on a worker goes to its deque whatever the group's state, and one on a spare thread (its
     * worker in a managed block), which the shut-down group refuses, runs in place.
     */
    @Test
    void aTaskOfAShutDownGroupMayForkEvenOnASpare() throws Exception {
        try (RotaPool one = RotaPool.builder().workers(1).build()) {
            CountDownLatch unblock = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            one.execute(() -> {
                blocking.countDown();
                try {
                    RotaPool.managedBlock(new java.util.concurrent.ForkJoinPool.ManagedBlocker() {
                        @Override
                        public boolean block() throws InterruptedException {
                            unblock.await();
                            return true;
                        }

                        @Override
                        public boolean isReleasable() {
                            return unblock.getCount() == 0;
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Liveness.await(blocking, "the only worker in a managed block");
            TaskGroup g = one.group("g", 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch shutDown = new CountDownLatch(1);
            Future<Object> outcome = g.submit(() -> {
                started.countDown();
                shutDown.await();
                RotaTask<Integer> child = new RotaTask<>() {
                    @Override
                    protected Integer compute() {
                        return 5;
                    }
                };
                try {
                    return child.fork().join() + " on " + Thread.currentThread().getName();
                } catch (Throwable t) {
                    return t + " on " + Thread.currentThread().getName();
                }
            });
            Liveness.await(started, "g's task started on a spare");
            g.shutdown();
            shutDown.countDown();
            Object result = outcome.get(Liveness.SECONDS, TimeUnit.SECONDS);
            unblock.countDown();
            assertTrue(String.valueOf(result).startsWith("5 on "), String.valueOf(result));
        }
    }

    /** Builder.name, like group and currency names, refuses a blank name. */
    @Test
    void aBlankPoolNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> RotaPool.builder().name(" "));
    }

    /**
     * The pool's shutdownNow() hands back a group's queued tasks; a group with none of its tasks
     * running then terminates at once, as after its own shutdownNow(), not only once the other
     * groups' tasks (here tasks that ignore interrupts) let the pool terminate.
     */
    @Test
    void poolShutdownNowTerminatesADrainedGroupWhileAnotherGroupsTasksRun() throws Exception {
        TaskGroup stubborn = pool.group("stubborn", 1);
        CountDownLatch started = new CountDownLatch(pool.workers());
        for (int i = 0; i < pool.workers(); i++) {
            stubborn.execute(() -> {
                started.countDown();
                while (release.getCount() > 0) {         // deaf to shutdownNow's interrupt
                    Thread.onSpinWait();
                }
            });
        }
        Liveness.await(started, "both workers in stubborn tasks");
        TaskGroup drained = pool.group("drained", 1);
        for (int i = 0; i < 3; i++) {
            drained.execute(() -> {});
        }
        assertEquals(3, pool.shutdownNow().size());
        assertTrue(drained.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS),
                "a group with nothing queued or running waits for another group's tasks");
        assertFalse(pool.isTerminated(), "the stubborn tasks still run");
        assertFalse(stubborn.isTerminated());
    }

    /**
     * A fork waits in its group's queue (counted in queuedTasks()) until it runs, whoever runs it:
     * a thief, its worker's next pop, or its joiner taking it back from the deque. Each of them
     * counts it as completed, so the tree of 1 submitted and 1,023 forked tasks counts 1,024.
     */
    @Test
    void everyForkThatRanCountsAsCompletedWhoeverRanIt() throws Exception {
        TaskGroup forking = pool.group("forking", 1);
        final class Tree extends RotaTask<Integer> {
            final int depth;

            Tree(int depth) {
                this.depth = depth;
            }

            @Override
            protected Integer compute() {
                if (depth == 0) {
                    return 1;
                }
                Tree left = new Tree(depth - 1);
                left.fork();
                return new Tree(depth - 1).compute() + left.join();
            }
        }
        Tree root = new Tree(10);                        // 1,024 leaves, 1,023 of the tasks forked
        assertEquals(1_024, forking.submit(root).get(Liveness.SECONDS, TimeUnit.SECONDS));
        forking.shutdown();
        assertTrue(forking.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(1 + 1_023, forking.stats().completedTasks());
    }

    /** shutdownNow of one group after the pool's shutdown returns each of its queued tasks once. */
    @Test
    void groupShutdownNowAfterPoolShutdownReturnsItsQueuedTasks() throws Exception {
        occupyEveryWorker();
        TaskGroup g = pool.group("g", 5);
        List<Runnable> mine = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Runnable r = () -> {};
            mine.add(r);
            g.execute(r);
        }
        pool.shutdown();
        List<Runnable> back = g.shutdownNow();
        assertEquals(5, back.size());
        assertTrue(back.containsAll(mine));
        assertTrue(g.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
        assertEquals(0, g.stats().queuedTasks());
    }
}
