package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.contract.Liveness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that waits for a task of another group, with no spare thread to stand in for it, runs the
 * awaited task itself when nobody has started it (as a {@code ForkJoinPool} join runs the task it
 * waits for): otherwise, once every worker and spare waits so, the awaited tasks stay queued for
 * ever. Only where the awaited group may run on the waiter's CPU, and only once: a task that the
 * waiter ran is not handed back by its group's {@code shutdownNow()}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WaitWithoutSpareRunsAwaitedTaskTest {

    private static RotaPool oneWorkerNoSpares() {
        return RotaPool.builder().workers(1).maxSpareThreads(0).build();
    }

    static final class Answer extends RotaTask<Integer> {
        final AtomicReference<Thread> ranOn = new AtomicReference<>();

        @Override
        protected Integer compute() {
            ranOn.set(Thread.currentThread());
            return 42;
        }
    }

    @Test
    void aFutureOfAnotherGroupIsRunByItsWaiter() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            AtomicReference<Thread> serverRanOn = new AtomicReference<>();
            Future<Thread> waiter = client.submit(() -> {
                Future<Integer> reply = server.submit(() -> {
                    serverRanOn.set(Thread.currentThread());
                    return 42;
                });
                assertEquals(42, reply.get());
                return Thread.currentThread();
            });
            Thread waiterThread = waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertSame(waiterThread, serverRanOn.get());
            // The queue's copy is skipped once taken: the task counts once, and nothing stays queued.
            Liveness.awaitCondition(() -> server.stats().queuedTasks() == 0, "the server's queue emptied");
            assertEquals(1, server.stats().completedTasks());
        }
    }

    @Test
    void aRotaTaskOfAnotherGroupIsRunByItsJoiner() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            Answer answer = new Answer();
            Future<Thread> waiter = client.submit(() -> {
                server.execute(answer);
                assertEquals(42, answer.join());
                return Thread.currentThread();
            });
            assertSame(waiter.get(Liveness.SECONDS, TimeUnit.SECONDS), answer.ranOn.get());
        }
    }

    /** The awaited task runs as one of its group's: what it forks and submits goes there, and sees that group. */
    @Test
    void theAwaitedTaskRunsAsATaskOfItsGroup() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            Future<Integer> waiter = client.submit(() -> server.submit(() -> {
                RotaTask<Integer> half = RotaTask.adapt(() -> 21);
                half.fork();
                return half.join() + 21;
            }).get());
            assertEquals(42, waiter.get(Liveness.SECONDS, TimeUnit.SECONDS));
            Liveness.awaitCondition(() -> server.stats().completedTasks() == 2,
                    "the server's task and its fork counted as the server's");
            assertEquals(1, client.stats().completedTasks());
        }
    }

    /**
     * One worker, one spare: the worker's task waits for a server task while the spare's waits for
     * another. Every thread then waits for a queued task; each waiter must run its own.
     */
    @Test
    void waitsThatHoldEveryThreadStillEnd() throws Exception {
        try (RotaPool pool = RotaPool.builder().workers(1).maxSpareThreads(1)
                .spareKeepAlive(Duration.ofSeconds(30)).build()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            CountDownLatch secondStarted = new CountDownLatch(1);
            Future<Integer> first = client.submit(() -> {
                RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {  // the spare runs the second
                    @Override
                    public boolean block() throws InterruptedException {
                        secondStarted.await();
                        return true;
                    }

                    @Override
                    public boolean isReleasable() {
                        return secondStarted.getCount() == 0;
                    }
                });
                return server.submit(() -> 1).get();
            });
            Future<Integer> second = client.submit(() -> {
                secondStarted.countDown();
                return server.submit(() -> 2).get();
            });
            assertEquals(1, first.get(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(2, second.get(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /** A chain of waits across three groups, each waiter running the next. */
    @Test
    void aChainOfWaitsAcrossGroupsEnds() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup a = pool.group("a", 100);
            TaskGroup b = pool.group("b", 100);
            TaskGroup c = pool.group("c", 100);
            Future<Integer> top = a.submit(() -> b.submit(() -> c.submit(() -> 7).get() * 6).get());
            assertEquals(42, top.get(Liveness.SECONDS, TimeUnit.SECONDS));
        }
    }

    /** A group kept off the waiter's CPU is not run there: its own worker runs it. */
    @Test
    void aTaskKeptOffTheWaitersCpuIsNotRunThere() throws Exception {
        int[] cpus = TwoCpus.ids();
        int here = cpus[0];
        int there = cpus[1];
        try (RotaPool pool = RotaPool.builder().cpus(here, there).maxSpareThreads(0).build()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            client.restrictToCpus(here);
            server.restrictToCpus(there);
            AtomicReference<Thread> serverRanOn = new AtomicReference<>();
            Future<Thread> waiter = client.submit(() -> {
                server.submit(() -> serverRanOn.set(Thread.currentThread())).get();
                return Thread.currentThread();
            });
            Thread waiterThread = waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertNotNull(serverRanOn.get());
            assertNotEquals(waiterThread, serverRanOn.get());
        }
    }

    /**
     * A wait kept from running its task by the awaited group's mask looks again: once the mask is
     * lifted it runs the task itself. Worker 1 is held by a task that only ends at the test's end,
     * and there are no spares, so only the waiter can run the task, and only once it looks again.
     */
    @Test
    void aWaitKeptOffByAMaskRunsTheTaskOnceTheMaskIsLifted() throws Exception {
        int[] cpus = TwoCpus.ids();
        int here = cpus[0];
        int there = cpus[1];
        try (RotaPool pool = RotaPool.builder().cpus(here, there).maxSpareThreads(0).build()) {
            TaskGroup hold = pool.group("hold", 100);
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            hold.restrictToCpus(there);
            client.restrictToCpus(here);
            server.restrictToCpus(there);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            hold.execute(() -> {
                held.countDown();
                Liveness.awaitUninterruptibly(release);
            });
            try {
                Liveness.await(held, "worker 1 held");
                AtomicReference<Thread> waiting = new AtomicReference<>();
                AtomicReference<Thread> serverRanOn = new AtomicReference<>();
                Future<Thread> waiter = client.submit(() -> {
                    Future<?> reply = server.submit(() -> serverRanOn.set(Thread.currentThread()));
                    waiting.set(Thread.currentThread());
                    reply.get();
                    return Thread.currentThread();
                });
                Liveness.awaitCondition(() -> waiting.get() != null && waiting.get().getState() == Thread.State.TIMED_WAITING,
                        "the client waits, looking at the mask again now and then");
                assertFalse(waiter.isDone(), "nobody may run the server's task while its mask keeps it on the held CPU");
                server.allowAllCpus();
                Thread waiterThread = waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
                assertSame(waiterThread, serverRanOn.get(), "the waiter ran the task once the mask was lifted");
            } finally {
                release.countDown();
            }
        }
    }

    /**
     * A wait with no spare deep in joins' help, past the bound on their nesting, still runs the task
     * it awaits, and so does every wait inside that run, down to some 120 tasks nested on one thread.
     * On one worker with no spares, the first of {@value #JOINERS} tasks of one group joins the last,
     * and each task between them joins the last too: each join helps with the next task queued, so
     * the last runs {@value #JOINERS} helps deep, past the 32 of the bound. It waits for a task of
     * another group, which waits for one of a third, and so on, {@value #CHAIN} waits in a chain,
     * each of which only this thread can run.
     */
    @Test
    void aWaitDeepInJoinsHelpRunsTheTaskItAwaits() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup joins = pool.group("joins", 100);
            TaskGroup[] servers = {pool.group("server-a", 100), pool.group("server-b", 100)};
            RotaTask<Integer> last = new RotaTask<>() {
                @Override
                protected Integer compute() {
                    return waitInChain(servers, CHAIN);
                }
            };
            CountDownLatch queued = new CountDownLatch(1);
            RotaTask<Integer> first = new RotaTask<>() {
                @Override
                protected Integer compute() {
                    Liveness.awaitUninterruptibly(queued);   // until every other task is queued behind it
                    return last.join();
                }
            };
            joins.submit(first);
            for (int i = 0; i < JOINERS - 2; i++) {
                joins.submit(new RotaTask<Integer>() {
                    @Override
                    protected Integer compute() {
                        return last.join();
                    }
                });
            }
            joins.submit(last);
            queued.countDown();
            assertEquals(CHAIN, first.get(Liveness.SECONDS, TimeUnit.SECONDS));
            // Each ran in place, its copy in the queue counted once a worker skips it.
            Liveness.awaitCondition(() -> servers[0].stats().completedTasks() + servers[1].stats().completedTasks() == CHAIN,
                    "every task of the chain counted once");
        }
    }

    private static final int JOINERS = 60;
    private static final int CHAIN = 60;

    /** Submits the next link of a chain of {@code left} waits to the other server group and waits for it; returns the chain's length. */
    private static int waitInChain(TaskGroup[] servers, int left) {
        if (left == 0) {
            return 0;
        }
        try {
            return servers[left % 2].submit(() -> waitInChain(servers, left - 1)).get() + 1;
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A future that its waiter runs is still in its group's queue; a shutdownNow of the group from
     * inside the run must not hand it back as never started, and the group counts it completed, as
     * it counts a copy that a worker skips. That shutdownNow interrupts the run, as it interrupts
     * every thread running the group's tasks, and not the waiter, whose group goes on.
     */
    @Test
    void aFutureRunByItsWaiterIsNotHandedBack() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            AtomicReference<List<Runnable>> handedBack = new AtomicReference<>();
            AtomicReference<Future<?>> reply = new AtomicReference<>();
            AtomicBoolean runInterrupted = new AtomicBoolean();
            Future<Boolean> waiter = client.submit(() -> {
                reply.set(server.submit(() -> {
                    handedBack.set(server.shutdownNow());
                    runInterrupted.set(Thread.currentThread().isInterrupted());
                }));
                reply.get().get();
                return Thread.currentThread().isInterrupted();
            });
            assertFalse(waiter.get(Liveness.SECONDS, TimeUnit.SECONDS), "the waiter was interrupted");
            assertTrue(runInterrupted.get(), "the server's shutdownNow did not interrupt its task");
            assertTrue(reply.get().isDone());
            assertFalse(reply.get().isCancelled());
            assertFalse(handedBack.get().contains(reply.get()), "handed back: " + handedBack.get());
            assertTrue(server.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS), "the server did not terminate");
            assertEquals(1, server.stats().completedTasks(), "the task its waiter ran, counted once");
        }
    }

    /** As above, with the pool's shutdownNow: the copy it drains is not handed back, and counts once. */
    @Test
    void aFutureRunByItsWaiterIsNotHandedBackByThePool() throws Exception {
        RotaPool pool = oneWorkerNoSpares();
        try {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            AtomicReference<List<Runnable>> handedBack = new AtomicReference<>();
            AtomicReference<Future<?>> reply = new AtomicReference<>();
            client.execute(() -> {
                reply.set(server.submit(() -> handedBack.set(pool.shutdownNow())));
                try {
                    reply.get().get();
                } catch (InterruptedException | ExecutionException e) {
                    // the pool's shutdownNow interrupts this task too; the reply is checked below
                }
            });
            Liveness.awaitTermination(pool);
            assertTrue(reply.get().isDone());
            assertFalse(reply.get().isCancelled());
            assertFalse(handedBack.get().contains(reply.get()), "handed back: " + handedBack.get());
            assertEquals(1, server.stats().completedTasks(), "the task its waiter ran, counted once");
        } finally {
            pool.shutdownNow();
        }
    }

    /** Forks two tasks and joins the older first: that join must help with its group's tasks. */
    static final class TwoForks extends RotaTask<Integer> {
        @Override
        protected Integer compute() {
            RotaTask<Integer> older = RotaTask.adapt(() -> 20);
            RotaTask<Integer> newer = RotaTask.adapt(() -> 22);
            older.fork();
            newer.fork();
            return older.join() + newer.join();
        }
    }

    /**
     * The awaited task, run on the waiter's worker, joins a fork that is not the newest: the join
     * helps with the awaited group's tasks, where its forks are, not with the waiting slice's group.
     */
    @Test
    void aJoinInsideTheAwaitedTaskHelpsWithItsOwnGroup() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            Future<Integer> waiter = client.submit(() -> {
                TwoForks task = new TwoForks();
                server.execute(task);
                return task.join();
            });
            assertEquals(42, waiter.get(Liveness.SECONDS, TimeUnit.SECONDS));
            Liveness.awaitCondition(() -> server.stats().completedTasks() == 3, "the task and its forks counted");
        }
    }

    /**
     * A join inside the awaited task runs no task of the waiter's group: that task would run with the
     * thread entered in the awaited group, where its own group's shutdownNow does not interrupt it.
     * Here the waiter's group holds a task that runs until interrupted; it must run outside the
     * awaited task, where client.shutdownNow() reaches it.
     */
    @Test
    void noTaskOfTheWaitersGroupRunsInsideTheAwaitedTask() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            CountDownLatch untilInterruptedStarted = new CountDownLatch(1);
            CountDownLatch untilInterruptedEnded = new CountDownLatch(1);
            AtomicBoolean sawInterrupt = new AtomicBoolean();
            AtomicReference<Thread> awaitedRunsOn = new AtomicReference<>();   // set while the awaited task runs
            AtomicBoolean ranInsideAwaited = new AtomicBoolean();
            client.submit(() -> {
                client.execute(() -> {
                    ranInsideAwaited.set(awaitedRunsOn.get() == Thread.currentThread());
                    untilInterruptedStarted.countDown();
                    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(Liveness.SECONDS);
                    while (!Thread.currentThread().isInterrupted() && System.nanoTime() < giveUp) {
                        Thread.onSpinWait();
                    }
                    sawInterrupt.set(Thread.currentThread().isInterrupted());
                    untilInterruptedEnded.countDown();
                });
                RotaTask<Void> awaited = RotaTask.adapt(() -> {
                    awaitedRunsOn.set(Thread.currentThread());
                    RotaTask<?> inner = RotaTask.adapt(() -> { });
                    server.execute(inner);               // in the server's inbox: the join helps to reach it
                    inner.join();
                    awaitedRunsOn.set(null);
                }, null);
                server.execute(awaited);
                awaited.join();
                return null;
            });
            Liveness.await(untilInterruptedStarted, "the client's second task started");
            client.shutdownNow();
            Liveness.await(untilInterruptedEnded, "the client's second task ended");
            assertFalse(ranInsideAwaited.get(), "the client's task ran inside the server's awaited task");
            assertTrue(sawInterrupt.get(), "client.shutdownNow() did not interrupt the client's task");
        }
    }

    /**
     * The awaited task's group does not terminate while its waiter still runs that task, even once
     * a shutdownNow has drained the task's queued copy; it terminates when the run ends, with the
     * task counted once.
     */
    @Test
    void theAwaitedGroupTerminatesOnlyOnceTheRunEnds() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> waiter = client.submit(() -> {
                RotaTask<Void> deaf = RotaTask.adapt(() -> {
                    started.countDown();
                    Liveness.awaitUninterruptibly(release); // deaf to shutdownNow's interrupt
                }, null);
                server.execute(deaf);
                deaf.join();
                return null;
            });
            Liveness.await(started, "the server's task started on its waiter's thread");
            List<Runnable> handedBack = server.shutdownNow();
            assertEquals(List.of(), handedBack, "the task its waiter runs was handed back");
            assertFalse(server.isTerminated(), "the server terminated while its task still ran");
            release.countDown();
            waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
            assertTrue(server.awaitTermination(Liveness.SECONDS, TimeUnit.SECONDS));
            assertEquals(1, server.stats().completedTasks(), "the task its waiter ran, counted once");
        }
    }

    /**
     * A timed get runs nothing in place: it keeps its timeout, which the run could overrun, and it
     * cannot wait for ever. With the only worker held by the waiter, the awaited tasks wait.
     */
    @Test
    void aTimedGetWaitsAndTimesOut() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            Future<List<String>> waiter = client.submit(() -> {
                Future<Integer> reply = server.submit(() -> 42);
                Answer answer = new Answer();
                server.execute(answer);
                return List.of(outcome(() -> reply.get(20, TimeUnit.MILLISECONDS)),
                        outcome(() -> answer.get(20, TimeUnit.MILLISECONDS)),
                        String.valueOf(answer.ranOn.get()));
            });
            assertEquals(List.of("TimeoutException", "TimeoutException", "null"),
                    waiter.get(Liveness.SECONDS, TimeUnit.SECONDS));
            Liveness.awaitCondition(() -> server.stats().completedTasks() == 2, "the server's tasks ran afterwards");
        }
    }

    private static String outcome(java.util.concurrent.Callable<?> call) {
        try {
            return String.valueOf(call.call());
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    /**
     * Only a future that its own group accepted as itself may be run by its waiter: one inside a
     * wrapper that the queue holds instead (an ExecutorCompletionService's), which a drain would hand
     * back although the future ran, and one a rejection policy dropped, which must never run.
     */
    @Test
    void onlyAFutureQueuedAsItselfMayBeRunByItsWaiter() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup server = pool.group("server", 100);
            CountDownLatch release = new CountDownLatch(1);
            try {
                CountDownLatch held = new CountDownLatch(1);
                server.execute(() -> {                                    // holds the only worker
                    held.countDown();
                    Liveness.awaitUninterruptibly(release);
                });
                Liveness.await(held, "the only worker held");
                assertTrue(((GroupFuture<?>) server.submit(() -> 1)).claimForWaiter(), "a group's own future");
                assertTrue(((GroupFuture<?>) pool.submit(() -> 2)).claimForWaiter(), "the pool's own future");
                Future<Integer> wrapped = new ExecutorCompletionService<Integer>(server).submit(() -> 3);
                assertFalse(((GroupFuture<?>) wrapped).claimForWaiter(), "a future queued inside a wrapper");
                assertEquals(2, server.stats().queuedTasks());             // the first future and the wrapper
                server.setQueueCapacity(2);
                server.setRejectionPolicy((task, group) -> { });          // drops what does not fit
                Future<Integer> dropped = server.submit(() -> 4);
                assertFalse(((GroupFuture<?>) dropped).claimForWaiter(), "a future its group dropped");
            } finally {
                release.countDown();
            }
        }
    }

    /**
     * The run is charged to the waiter's group even where the wait sits inside a managed block that
     * found no spare, whose pause of the slice's clock would otherwise leave the run charged to
     * nobody. The awaited task spins for 50 ms of wall time; the slice's clock is a wall clock, so
     * the waiter's group is charged at least that.
     */
    @Test
    void aRunInsideAManagedBlockIsChargedToTheWaitersGroup() throws Exception {
        long spinNanos = TimeUnit.MILLISECONDS.toNanos(50);
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            Future<?> waiter = client.submit(() -> {
                Future<?> reply = server.submit(() -> {
                    long end = System.nanoTime() + spinNanos;
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                });
                RotaPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
                    @Override
                    public boolean block() throws InterruptedException {
                        try {
                            reply.get();                 // no spare stood in for the block: runs it here
                        } catch (java.util.concurrent.ExecutionException e) {
                            throw new AssertionError(e);
                        }
                        return true;
                    }

                    @Override
                    public boolean isReleasable() {
                        return reply.isDone();
                    }
                });
                return null;
            });
            waiter.get(Liveness.SECONDS, TimeUnit.SECONDS);
            Liveness.awaitCondition(() -> client.stats().slices() >= 1, "the client's slice ended");
            assertTrue(client.stats().cpuTimeNanos() >= spinNanos,
                    "client charged " + client.stats().cpuTimeNanos() + " ns for a run of " + spinNanos);
        }
    }

    /**
     * A cancel(true) of the waiting task that comes while it runs the awaited task is the waiting
     * task's: the awaited task is not interrupted (its other waiters get its result), and the waiting
     * task finds the interrupt set once the run returns.
     */
    @Test
    void aCancelOfTheWaiterDuringTheRunInterruptsTheWaiterNotTheRun() throws Exception {
        try (RotaPool pool = oneWorkerNoSpares()) {
            TaskGroup client = pool.group("client", 100);
            TaskGroup server = pool.group("server", 100);
            CountDownLatch serverRunning = new CountDownLatch(1);
            CountDownLatch releaseServer = new CountDownLatch(1);
            CountDownLatch waiterDone = new CountDownLatch(1);
            AtomicBoolean serverInterrupted = new AtomicBoolean();
            AtomicBoolean waiterInterrupted = new AtomicBoolean();
            AtomicReference<Future<String>> reply = new AtomicReference<>();
            Future<String> waiter = client.submit(() -> {
                try {
                    reply.set(server.submit(() -> {
                        serverRunning.countDown();
                        while (releaseServer.getCount() > 0) {
                            Thread.onSpinWait();
                        }
                        serverInterrupted.set(Thread.currentThread().isInterrupted()); // after the release, so after the cancel
                        return "ok";
                    }));
                    return reply.get().get();
                } finally {
                    waiterInterrupted.set(Thread.currentThread().isInterrupted());
                    waiterDone.countDown();
                }
            });
            Liveness.await(serverRunning, "the server's task ran on its waiter's thread");
            assertTrue(waiter.cancel(true));
            releaseServer.countDown();
            assertEquals("ok", reply.get().get(Liveness.SECONDS, TimeUnit.SECONDS));
            Liveness.await(waiterDone, "the waiting task returned");
            assertFalse(serverInterrupted.get(), "the client's cancel interrupted the server's task");
            assertTrue(waiterInterrupted.get(), "the waiting task did not see its own cancel");
        }
    }
}
