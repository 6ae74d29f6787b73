package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PartialSumTreeTest {

    /** Integer weights keep every sum exact, so the tree must agree with a linear scan bit for bit. */
    @Test
    void shouldAgreeWithBruteForceUnderRandomUpdates() {
        SplittableRandom random = new SplittableRandom(99);
        PartialSumTree tree = new PartialSumTree(4);
        double[] weights = new double[300];
        for (int update = 0; update < 20_000; update++) {
            int slot = random.nextInt(random.nextBoolean() ? 20 : weights.length);
            double weight = random.nextInt(4) == 0 ? 0 : random.nextLong(1L << 30);
            weights[slot] = weight;
            tree.set(slot, weight);

            assertEquals(0, tree.firstInconsistentNode());
            double total = 0;
            for (double w : weights) {
                total += w;
            }
            assertEquals(total, tree.total(), () -> "total after update");
            if (total > 0) {
                for (int probe = 0; probe < 4; probe++) {
                    double point = random.nextLong((long) total);
                    assertEquals(linearFind(weights, point), tree.find(point), () -> "slot of " + point);
                }
            }
        }
    }

    @Test
    void shouldKeepInnerNodesEqualToTheirChildrenWithFractionalWeights() {
        SplittableRandom random = new SplittableRandom(3);
        PartialSumTree tree = new PartialSumTree(64);
        double[] weights = new double[64];
        for (int update = 0; update < 100_000; update++) {
            int slot = random.nextInt(weights.length);
            weights[slot] = random.nextDouble() * Math.pow(10, random.nextInt(-6, 7));
            tree.set(slot, weights[slot]);
        }
        assertEquals(0, tree.firstInconsistentNode());
        double total = 0;
        for (double w : weights) {
            total += w;
        }
        assertEquals(total, tree.total(), total * 1e-12);
    }

    @Test
    void shouldNeverLandOnAnEmptySlot() {
        PartialSumTree tree = new PartialSumTree(8);
        tree.set(1, 5);
        tree.set(3, 3);
        assertEquals(1, tree.find(0));
        assertEquals(1, tree.find(4.999));
        assertEquals(3, tree.find(5));
        assertEquals(3, tree.find(Math.nextDown(8.0)));
        assertEquals(3, tree.find(8)); // at the total, as rounding of u × total may give
        assertEquals(3, tree.find(100));
    }

    @Test
    void shouldGrowAndKeepWeights() {
        PartialSumTree tree = new PartialSumTree(2);
        tree.set(0, 1);
        tree.set(1, 2);
        tree.set(100, 4);
        assertEquals(128, tree.capacity());
        assertEquals(7, tree.total());
        assertEquals(2, tree.weight(1));
        assertEquals(100, tree.find(3));
        assertEquals(0, tree.firstInconsistentNode());
    }

    @Test
    void shouldRejectBadWeights() {
        PartialSumTree tree = new PartialSumTree(2);
        assertEquals("weight must be finite and non-negative: -1.0",
                assertThrows(IllegalArgumentException.class, () -> tree.set(0, -1)).getMessage());
        assertEquals("weight must be finite and non-negative: NaN",
                assertThrows(IllegalArgumentException.class, () -> tree.set(0, Double.NaN)).getMessage());
    }

    private static int linearFind(double[] weights, double point) {
        double prefix = 0;
        for (int slot = 0; slot < weights.length; slot++) {
            prefix += weights[slot];
            if (point < prefix) {
                return slot;
            }
        }
        throw new AssertionError("point past the total: " + point);
    }
}
