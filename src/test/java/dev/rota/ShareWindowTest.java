package dev.rota;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The verdicts of {@link ShareWindow} on windows recorded by hand: a tight window is judged on its
 * shares; a window loose only through slices the machine stretched is aborted; one loose through
 * slices the pool's threads ran fails. The figures are those of a 9:1 lottery window on a host
 * that took a quarter of two CPUs: 3,900 slices of 0.6 ms, and 8 that the host stretched to 80 ms.
 */
class ShareWindowTest {
    private static final long QUANTUM = 500_000;
    private static final int WORKERS = 2;
    private static final long SLICE = 600_000;
    private static final long STRETCHED = 80_000_000;

    /** A 9:1 lottery window: {@code stretched} of its slices 80 ms long, the rest 0.6 ms, won 9:1. */
    private static ShareWindow window(int stretched, long takenByTheMachine) {
        ShareWindow window = new ShareWindow(SharePolicy.LOTTERY, List.of("a", "b"), new double[] {0.9, 0.1},
                WORKERS, QUANTUM);
        for (int i = 0; i < 3_900; i++) {
            window.record(i % 10 == 0 ? "b" : "a", SLICE);
        }
        for (int i = 0; i < stretched; i++) {
            window.record(i % 8 == 0 ? "b" : "a", STRETCHED);
        }
        window.wallNanos = window.chargedToAll / WORKERS;     // every worker's time charged
        window.poolCpuNanos = window.chargedToAll - takenByTheMachine;
        return window;
    }

    @Test
    void aTightWindowIsJudgedOnItsShares() {
        ShareWindow window = window(0, 0);
        assertTrue(window.tight());
        assertDoesNotThrow(() -> window.assertShares("9:1"));
    }

    @Test
    void aTightWindowWithAShareOutsideItsBoundFails() {
        ShareWindow window = new ShareWindow(SharePolicy.LOTTERY, List.of("a", "b"), new double[] {0.9, 0.1},
                WORKERS, QUANTUM);
        for (int i = 0; i < 3_900; i++) {
            window.record(i % 5 == 0 ? "b" : "a", SLICE);    // b gets twice its share
        }
        window.wallNanos = window.chargedToAll / WORKERS;
        window.poolCpuNanos = window.chargedToAll;
        assertTrue(window.tight());
        assertThrows(AssertionFailedError.class, () -> window.assertShares("9:1"));
    }

    /**
     * Eight slices stretched to 80 ms weigh 51,200 ms² in lottery's variance against 1,400 for the
     * rest: the window would have been tight with them cut to four quanta, and the machine took more
     * than half of what they ran beyond two quanta.
     */
    @Test
    void aWindowLooseOnlyThroughSlicesTheMachineStretchedIsAborted() {
        ShareWindow window = window(8, 400_000_000);
        assertFalse(window.tight());
        assertThrows(TestAbortedException.class, () -> window.assertShares("9:1"));
    }

    @Test
    void aWindowLooseThroughSlicesThePoolRanFails() {
        ShareWindow window = window(8, 0);
        assertFalse(window.tight());
        assertThrows(AssertionFailedError.class, () -> window.assertShares("9:1"));
    }

    /**
     * The same window, its stretched slices counted as the pool's threads' own CPU time (as a guest
     * kernel may count steal): aborted where the host's steal during the window was a large part
     * of the machine's CPU time, failed where it was a small part.
     */
    @Test
    void aWindowLooseWhileTheHostStoleMuchOfTheMachineIsAborted() {
        long machineNanos = Runtime.getRuntime().availableProcessors() * window(8, 0).wallNanos;
        ShareWindow muchStolen = window(8, 0);
        muchStolen.stolenNanos = (long) (0.3 * machineNanos);
        assertThrows(TestAbortedException.class, () -> muchStolen.assertShares("9:1"));
        ShareWindow littleStolen = window(8, 0);
        littleStolen.stolenNanos = (long) (0.1 * machineNanos);
        assertThrows(AssertionFailedError.class, () -> littleStolen.assertShares("9:1"));
    }

    /**
     * A machine-stretched window, as above, where b won 80 % of the slices it is entitled to 10 % of:
     * its error is larger than all the time the stretched slices ran, so no stretch explains it.
     */
    @Test
    void aLooseWindowWithAShareOutsideEvenItsLooseBoundFails() {
        ShareWindow window = new ShareWindow(SharePolicy.LOTTERY, List.of("a", "b"), new double[] {0.9, 0.1},
                WORKERS, QUANTUM);
        for (int i = 0; i < 3_900; i++) {
            window.record(i % 5 == 0 ? "a" : "b", SLICE);
        }
        for (int i = 0; i < 8; i++) {
            window.record(i % 8 == 0 ? "b" : "a", STRETCHED);
        }
        window.wallNanos = window.chargedToAll / WORKERS;
        window.poolCpuNanos = window.chargedToAll - 400_000_000;
        assertFalse(window.tight());
        assertThrows(AssertionFailedError.class, () -> window.assertShares("9:1"));
    }

    @Test
    void theHostsStealIsTheEighthFigureOfTheCpuLine() {
        List<String> procStat = List.of(
                "cpu  4705 150 1120 16250 520 0 33 271 0 0",
                "cpu0 2350 75 560 8125 260 0 16 135 0 0",
                "intr 123456 0 0");
        assertEquals(271 * HostSteal.NANOS_PER_TICK, HostSteal.nanosIn(procStat));
        assertEquals(0, HostSteal.nanosIn(List.of("cpu  4705 150 1120 16250")), "a kernel without the column");
        assertEquals(0, HostSteal.nanosIn(List.of("intr 1 2 3")), "no cpu line");
    }
}
