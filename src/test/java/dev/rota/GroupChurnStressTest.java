package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rota.contract.Liveness;
import dev.rota.contract.RunCounter;
import dev.rota.contract.StressRounds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Every task runs exactly once while the share model changes under it. Submitters feed four groups in
 * two currencies with tasks of four kinds: plain, short busy ones, ones that fork a task and join it,
 * and ones that wait on a task submitted to another group (a ticket loan and a managed block). Beside
 * them one thread churns the model as a tenant's management code would at run time: tickets of groups
 * and of currencies' backing, backing added between the currencies and withdrawn (a second backing that
 * would close a cycle is refused with {@code IllegalArgumentException}, the only exception it may
 * meet), one group restricted to one CPU and freed again, loans opened and closed, and short-lived
 * groups made, fed, shut down and awaited. No task waits on the restricted group: waits on the queued
 * tasks of a group kept on some CPUs may hold every thread of those CPUs, and then nothing runs those
 * tasks until the mask changes (README, "A wait that runs what it waits for").
 *
 * <p>Once the submitters and the churn stop, the pool must reach quiescence, every task submitted must
 * have run exactly once (and every task of the short-lived groups), no task and no worker may have
 * met an exception, and the pool must terminate. Policies alternate between rounds; a failure names
 * its seed and round.
 */
class GroupChurnStressTest {
    private static final int ROUNDS = 8;
    private static final long ROUND_MILLIS = 300;
    private static final int SUBMITTERS = 2;
    private static final int TASKS_PER_SUBMITTER = 1 << 17;
    private static final int SHORT_LIVED_TASKS = 200;
    private static final int MAX_SHORT_LIVED_GROUPS = 64;
    /** The index of the one group whose CPUs the churn restricts; the groups before it are never restricted. */
    private static final int MASKED = 3;

    @Test
    void tasksRunOnceWhileTicketsFundingMasksAndLoansChange() throws Exception {
        StressRounds.alternatingPolicies(ROUNDS, GroupChurnStressTest::runRound);
    }

    private static void runRound(String round, SharePolicy policy, SplittableRandom random) throws Exception {
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        RotaPool pool = RotaPool.builder().workers(2).policy(policy).randomSeed(random.nextLong())
                .uncaughtExceptionHandler((thread, failure) -> failures.add(failure)).build();
        try {
            Currency a = pool.baseCurrency().newCurrency("a", 100);
            Currency b = pool.baseCurrency().newCurrency("b", 100);
            TaskGroup[] groups = {
                pool.group("g0", 100), a.newGroup("a1", 100), a.newGroup("a2", 200), b.newGroup("b1", 100)
            };
            for (TaskGroup group : groups) {
                group.setQueueCapacity(SUBMITTERS * TASKS_PER_SUBMITTER);
            }
            RunCounter counter = new RunCounter(SUBMITTERS * TASKS_PER_SUBMITTER);
            RunCounter shortLived = new RunCounter(MAX_SHORT_LIVED_GROUPS * SHORT_LIVED_TASKS);
            int[] submitted = new int[SUBMITTERS];
            int[] shortLivedGroups = new int[1];
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < SUBMITTERS; s++) {
                int submitter = s;
                SplittableRandom own = random.split();
                threads.add(Thread.ofPlatform().name("submitter-" + s).start(() -> {
                    Liveness.awaitQuietly(start);
                    int first = submitter * TASKS_PER_SUBMITTER;
                    int n = 0;
                    try {
                        for (; n < TASKS_PER_SUBMITTER && !stop.get(); n++) {
                            TaskGroup group = groups[own.nextInt(groups.length)];
                            TaskGroup other = groups[own.nextInt(MASKED)]; // never the masked group: see the class comment
                            group.execute(task(counter.task(first + n), other, own.nextInt(16)));
                        }
                    } catch (Throwable unexpected) {
                        failures.add(unexpected);
                    }
                    submitted[submitter] = n;            // published by join()
                }));
            }
            SplittableRandom churnRandom = random.split();
            threads.add(Thread.ofPlatform().name("churn").start(() -> {
                Liveness.awaitQuietly(start);
                try {
                    shortLivedGroups[0] = churn(pool, a, b, groups, shortLived, churnRandom, stop);
                } catch (Throwable unexpected) {
                    failures.add(unexpected);
                }
            }));
            start.countDown();
            Thread.sleep(ROUND_MILLIS);
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(Liveness.SECONDS));
                assertFalse(thread.isAlive(), round + ": " + thread.getName() + " did not finish");
            }
            if (!pool.awaitQuiescence(Liveness.SECONDS, TimeUnit.SECONDS)) {
                fail(round + ": no quiescence; failures: " + failures + "; the waits without a spare, whole:\n" + waitsWithoutSpare()
                        + "\nevery thread:\n" + Liveness.threadDump());
            }
            pool.shutdown();
            if (!pool.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS)) {
                fail(round + ": no termination of " + pool + "; threads:\n" + Liveness.threadDump());
            }
            assertTrue(failures.isEmpty(), round + " (" + policy + "): " + failures);
            long total = 0;
            for (int s = 0; s < SUBMITTERS; s++) {
                total += submitted[s];
                for (int id = s * TASKS_PER_SUBMITTER; id < (s + 1) * TASKS_PER_SUBMITTER; id++) {
                    int expected = id - s * TASKS_PER_SUBMITTER < submitted[s] ? 1 : 0;
                    if (counter.runs(id) != expected) {
                        fail(round + " (" + policy + "): task #" + id + " ran " + counter.runs(id) + " times, "
                                + (expected == 1 ? "submitted" : "never submitted"));
                    }
                }
            }
            assertEquals(total, counter.total(), round + ": runs of the submitted tasks");
            assertTrue(total > 0, round + ": nothing was submitted");
            for (int id = 0; id < shortLived.tasks(); id++) {
                int expected = id < shortLivedGroups[0] * SHORT_LIVED_TASKS ? 1 : 0;
                if (shortLived.runs(id) != expected) {
                    fail(round + ": short-lived groups' task #" + id + " ran " + shortLived.runs(id) + " times");
                }
            }
        } finally {
            if (!pool.isTerminated()) {
                pool.shutdownNow();
            }
        }
    }

    /** The whole stacks of the pool threads waiting with no spare standing in (those in a plain managed block). */
    private static String waitsWithoutSpare() {
        return Liveness.threadDump(frames -> Arrays.stream(frames).anyMatch(frame -> frame.getMethodName().equals("managedBlock")
                && frame.getClassName().equals("dev.rota.core.Engine")), Integer.MAX_VALUE);
    }

    /**
     * Kind 0 to 9: the task itself; 10 to 12: after a busy spell of 6, 12 or 18 µs; 13 and 14: in a fork
     * that the task joins; 15: in a task submitted to {@code other}, which this one waits for.
     */
    private static Runnable task(Runnable counted, TaskGroup other, int kind) {
        if (kind < 10) {
            return counted;
        }
        if (kind < 13) {
            long spin = (kind - 9) * 6_000L;
            return () -> {
                Backlog.spin(spin);
                counted.run();
            };
        }
        if (kind < 15) {
            return () -> new RotaTask<Void>() {
                @Override
                protected Void compute() {
                    counted.run();
                    return null;
                }
            }.fork().join();
        }
        return () -> {
            try {
                other.submit(counted).get();
            } catch (Exception e) {
                throw new IllegalStateException("a wait on another group failed", e);
            }
        };
    }

    /** Changes the model until {@code stop}; returns how many short-lived groups it made and fed. */
    private static int churn(RotaPool pool, Currency a, Currency b, TaskGroup[] groups, RunCounter shortLived,
            SplittableRandom random, AtomicBoolean stop) throws InterruptedException {
        List<Funding> fundings = new ArrayList<>();
        List<Loan> loans = new ArrayList<>();
        int[] cpus = pool.topology().workers().stream().mapToInt(CpuTopology.WorkerPlacement::cpu).distinct().toArray();
        int made = 0;
        try {
            while (!stop.get()) {
                TaskGroup group = groups[random.nextInt(groups.length)];
                switch (random.nextInt(8)) {
                    case 0 -> group.setTickets(1 + random.nextInt(1000));
                    case 1 -> {
                        Currency funded = random.nextBoolean() ? a : b;
                        List<Funding> backing = funded.fundings();
                        backing.get(random.nextInt(backing.size())).setTickets(1 + random.nextInt(1000));
                    }
                    case 2 -> {
                        boolean aFromB = random.nextBoolean();
                        try {
                            fundings.add((aFromB ? a : b).fundFrom(aFromB ? b : a, 1 + random.nextInt(100)));
                        } catch (IllegalArgumentException cycle) {
                            assertTrue(cycle.getMessage().contains("cycle"), "refused for another reason: " + cycle);
                        }
                    }
                    case 3 -> {
                        if (!fundings.isEmpty()) {
                            fundings.remove(random.nextInt(fundings.size())).close();
                        }
                    }
                    case 4 -> {
                        if (random.nextBoolean()) {
                            groups[MASKED].restrictToCpus(cpus[random.nextInt(cpus.length)]);
                        } else {
                            groups[MASKED].allowAllCpus();
                        }
                    }
                    case 5 -> {
                        TaskGroup borrower = groups[random.nextInt(groups.length)];
                        if (borrower != group) {
                            loans.add(group.lendTo(borrower));
                        }
                    }
                    case 6 -> {
                        if (!loans.isEmpty()) {
                            loans.remove(random.nextInt(loans.size())).close();
                        }
                    }
                    default -> {
                        if (made < MAX_SHORT_LIVED_GROUPS) {
                            TaskGroup brief = (random.nextBoolean() ? a : b).newGroup("brief-" + made, 1 + random.nextInt(300));
                            for (int i = 0; i < SHORT_LIVED_TASKS; i++) {
                                brief.execute(shortLived.task(made * SHORT_LIVED_TASKS + i));
                            }
                            brief.shutdown();
                            assertTrue(brief.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), brief + " did not terminate");
                            made++;
                        }
                    }
                }
                Thread.sleep(0, 20_000);
            }
        } finally {
            for (Loan loan : loans) {
                loan.close();
            }
            for (Funding funding : fundings) {
                funding.close();
            }
            groups[MASKED].allowAllCpus();
        }
        return made;
    }
}
