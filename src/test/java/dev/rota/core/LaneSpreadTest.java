package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link SubmitterLanes#spread}: which allowed worker's inbox an outside thread submits to before it ever moves. */
class LaneSpreadTest {

    @Test
    void staysInRangeForEveryWidthAndId() {
        long[] ids = {0, 1, 2, 31, 1L << 31, (1L << 32) + 5, Long.MAX_VALUE, -1};
        for (int n = 1; n <= 64; n++) {
            for (long id : ids) {
                int lane = SubmitterLanes.spread(id, n);
                assertTrue(lane >= 0 && lane < n, "id " + id + " over " + n + " lanes gave " + lane);
            }
        }
    }

    @Test
    void aThreadAlwaysGetsTheSameLane() {
        for (long id = 0; id < 100; id++) {
            assertEquals(SubmitterLanes.spread(id, 7), SubmitterLanes.spread(id, 7), "id " + id);
        }
    }

    /** Consecutive thread ids, as a burst of new submitter threads gets, spread evenly over the lanes. */
    @Test
    void consecutiveIdsSpreadEvenly() {
        for (int n = 2; n <= 16; n++) {
            int[] count = new int[n];
            int ids = 100 * n;
            for (long id = 1000; id < 1000 + ids; id++) {
                count[SubmitterLanes.spread(id, n)]++;
            }
            for (int lane = 0; lane < n; lane++) {
                assertTrue(count[lane] >= 80 && count[lane] <= 120,
                        n + " lanes: lane " + lane + " got " + count[lane] + " of " + ids + " ids");
            }
        }
    }

    @Test
    void twoConsecutiveIdsGetDifferentLanesOfTwo() {
        int differ = 0;
        for (long id = 1; id <= 1000; id++) {
            if (SubmitterLanes.spread(id, 2) != SubmitterLanes.spread(id + 1, 2)) {
                differ++;
            }
        }
        assertTrue(differ >= 600, "consecutive ids on different lanes of 2 in " + differ + " of 1000 pairs");
    }
}
