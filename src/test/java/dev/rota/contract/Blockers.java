package dev.rota.contract;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tasks that hold a worker until {@link #release()}d, and counters that say what happened to them.
 *
 * <p>A blocker counts itself started, then waits (on a latch, or in {@code Thread.sleep} for
 * {@link #sleeper()}) for the release. An interrupt ends the wait and is counted; a release ends it
 * normally and is counted as finished. The wait gives up after twice the liveness bound, so that a
 * pool which neither releases nor interrupts makes its test fail instead of hang; a blocker that
 * gave up is counted in neither {@link #finished()} nor {@link #interrupted()}.
 *
 * <p>Invariant once the pool has terminated: {@code started() == finished() + interrupted() + gaveUp}.
 */
public final class Blockers {

    private static final long GIVE_UP_SECONDS = 2 * Liveness.SECONDS;

    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch allStarted;
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicInteger interrupted = new AtomicInteger();
    private final CountDownLatch allInterrupted;

    /** @param expected how many blockers {@link #awaitStarted()} and {@link #awaitInterrupted()} wait for */
    public Blockers(int expected) {
        if (expected < 0) {
            throw new IllegalArgumentException("expected blockers must be >= 0: " + expected);
        }
        allStarted = new CountDownLatch(expected);
        allInterrupted = new CountDownLatch(expected);
    }

    /** A blocker waiting on a latch; the callable returns "released", or throws the InterruptedException. */
    public Callable<String> callable() {
        return () -> {
            begin();
            try {
                if (release.await(GIVE_UP_SECONDS, TimeUnit.SECONDS)) {
                    finished.incrementAndGet();
                }
                return "released";
            } catch (InterruptedException e) {
                onInterrupt();
                throw e;
            }
        };
    }

    /** A blocker for {@code execute}: records the interrupt, restores the flag, and returns normally. */
    public Runnable runnable() {
        Callable<String> blocker = callable();
        return () -> {
            try {
                blocker.call();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException("a blocker cannot fail otherwise", e);
            }
        };
    }

    /** A blocker in {@code Thread.sleep}, which only an interrupt ends early (release does not). */
    public Runnable sleeper() {
        return () -> {
            begin();
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(GIVE_UP_SECONDS));
            } catch (InterruptedException e) {
                onInterrupt();
                Thread.currentThread().interrupt();
            }
        };
    }

    public void awaitStarted() throws InterruptedException {
        Liveness.await(allStarted, "blockers to start");
    }

    public void awaitInterrupted() throws InterruptedException {
        Liveness.await(allInterrupted, "blockers to see an interrupt");
    }

    public void release() {
        release.countDown();
    }

    public int started() {
        return started.get();
    }

    public int finished() {
        return finished.get();
    }

    public int interrupted() {
        return interrupted.get();
    }

    private void begin() {
        started.incrementAndGet();
        allStarted.countDown();
    }

    private void onInterrupt() {
        interrupted.incrementAndGet();
        allInterrupted.countDown();
    }
}
