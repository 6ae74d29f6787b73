package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.rota.contract.Liveness;
import java.time.Duration;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An untimed invokeAll whose collection holds a null throws NullPointerException before it submits
 * anything, as the timed form does: no task before the null runs, or sits cancelled in the queue
 * holding a place of the group's capacity (AbstractExecutorService's loop makes and submits each
 * future in turn, and would have).
 */
class InvokeAllWithANullSubmitsNothingTest {
    private final RotaPool pool = RotaPool.builder().workers(2).build();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws InterruptedException {
        release.countDown();
        pool.shutdownNow();
        Liveness.awaitTermination(pool);
    }

    /** {@code first}, then null; the null is handed out only once {@code ran} opened or 5 s passed. */
    private static Collection<Callable<String>> firstThenNull(Callable<String> first, CountDownLatch ran) {
        return new AbstractCollection<>() {
            @Override
            public int size() {
                return 2;
            }

            @Override
            public Iterator<Callable<String>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < 2;
                    }

                    @Override
                    public Callable<String> next() {
                        if (next++ == 0) {
                            return first;
                        }
                        try {
                            ran.await(5, TimeUnit.SECONDS);      // lets a task submitted already run first
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return null;
                    }
                };
            }
        };
    }

    @Test
    void noTaskOfTheCallRuns() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            TaskGroup gold = pool.group("gold", 10);
            List<String> ranThrough = new ArrayList<>();
            for (ExecutorService executor : List.of(gold, gold.submitOnly(), pool)) {
                CountDownLatch ran = new CountDownLatch(1);
                Callable<String> first = () -> {
                    ran.countDown();
                    return "first";
                };
                assertThrows(NullPointerException.class, () -> executor.invokeAll(firstThenNull(first, ran)));
                if (ran.getCount() == 0) {
                    ranThrough.add(executor.toString());
                }
            }
            assertEquals(List.of(), ranThrough,
                    "a task of an invokeAll that threw NullPointerException ran through these executors");
        });
    }

    @Test
    void theRefusedCallHoldsNoPlaceInTheQueue() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            TaskGroup blockers = pool.group("blockers", 1);
            CountDownLatch started = new CountDownLatch(2);
            for (int i = 0; i < 2; i++) {
                blockers.execute(() -> {
                    started.countDown();
                    Liveness.awaitQuietly(release);
                });
            }
            Liveness.await(started, "both workers occupied");
            TaskGroup small = pool.group("small", 10);
            small.setQueueCapacity(1);
            List<Callable<String>> tasks = Arrays.asList(() -> "first", null);
            assertThrows(NullPointerException.class, () -> small.invokeAll(tasks));
            assertEquals(0, small.stats().queuedTasks(),
                    "invokeAll threw NullPointerException but left a task of it in the group's queue");
        });
    }
}
