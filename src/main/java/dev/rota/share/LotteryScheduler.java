package dev.rota.share;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * Lottery scheduling: randomized proportional share. Each pick draws a point in the total of the
 * competing clients' weights; a client worth t of T base units wins with probability t / T, so over n
 * picks its wins have mean n·t/T and standard deviation sqrt(n·(t/T)·(1 − t/T)).
 *
 * <p>Compensation: a client charged with a fraction f of its quantum competes with its value × 1/f
 * until its next win. It then wins 1/f times as often and uses f of a quantum each time, so its CPU
 * time stays proportional to its value. f is clamped to [1/1024, 1024]: a client charged more than a
 * quantum is deflated alike, and one that used almost nothing cannot take every lottery.
 */
public final class LotteryScheduler implements ShareScheduler {
    /*
     * Implementation overview [1]
     *
     * Competing clients occupy slots 0 .. competing-1 of a PartialSumTree, packed: a client that
     * leaves gives its slot to the client in the last slot. A slot's weight is
     * value(client) × compensation(client). pick draws point = u × total with u uniform in [0, 1)
     * and descends the tree (O(log n)); the winner's compensation ends there, as its new quantum
     * starts. charge sets compensation = 1 / f, f = used / quantum clamped as documented. A client
     * that leaves keeps its compensation for its next join (a client that blocked early is
     * compensated when it comes back, as in [1] 4.5); remove() forgets it.
     *
     * References: [1] C. A. Waldspurger, W. E. Weihl, "Lottery Scheduling: Flexible
     * Proportional-Share Resource Management", OSDI 1994, sections 2.2, 3.4, 4.2, 4.5.
     */

    /** The least fraction of a quantum compensated for: at most a 1024-fold weight. */
    static final double MIN_FRACTION = 1.0 / 1024;
    /** The greatest overrun deflated for: at least 1/1024 of the weight. */
    static final double MAX_FRACTION = 1024;
    /** Draws from the whole tree tried by an eligible-only pick before it draws exactly. */
    static final int REDRAWS = 8;

    private static final byte UNKNOWN = 0;
    private static final byte COMPETING = 1;
    private static final byte WAITING = 2;

    private final RandomGenerator random;
    private final PartialSumTree tree = new PartialSumTree(16);
    private int competing;
    private int[] clientAt = new int[16];

    private byte[] state = new byte[16];
    private int[] slotOf = new int[16];
    private double[] value = new double[16];
    private double[] compensation = new double[16];

    /** A scheduler whose {@link #pick()} draws from {@code random}. */
    public LotteryScheduler(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
    }

    @Override
    public void setValue(int client, double newValue) {
        checkClient(client);
        if (!(newValue >= 0) || Double.isInfinite(newValue)) {
            throw new IllegalArgumentException("value must be finite and non-negative: " + newValue);
        }
        ensureCapacity(client);
        if (state[client] == COMPETING) {
            if (newValue == 0) {
                stopCompeting(client);
            } else {
                value[client] = newValue;
                tree.set(slotOf[client], weight(client));
            }
        } else if (newValue > 0) {
            if (state[client] == UNKNOWN) {
                compensation[client] = 1;
            }
            state[client] = COMPETING;
            value[client] = newValue;
            int slot = competing++;
            if (slot == clientAt.length) {
                clientAt = Arrays.copyOf(clientAt, slot * 2);
            }
            clientAt[slot] = client;
            slotOf[client] = slot;
            tree.set(slot, weight(client));
        }
    }

    @Override
    public void remove(int client) {
        checkClient(client);
        if (client >= state.length || state[client] == UNKNOWN) {
            return;
        }
        if (state[client] == COMPETING) {
            stopCompeting(client);
        }
        state[client] = UNKNOWN;
    }

    /** Draws the next client with this scheduler's own random source. */
    @Override
    public int pick() {
        return pick(random);
    }

    /** Draws the next client with {@code source}; the winner's compensation ends. */
    public int pick(RandomGenerator source) {
        if (competing == 0) {
            return NONE;
        }
        return win(tree.find(source.nextDouble() * tree.total()));
    }

    /** Draws among the eligible clients with this scheduler's own random source. */
    @Override
    public int pick(IntPredicate eligible) {
        return pick(random, eligible);
    }

    @Override
    public int pick(IntPredicate eligible, RandomGenerator source) {
        return pick(source, eligible);
    }

    /**
     * Draws among the clients {@code eligible} accepts, each with probability its weight over their
     * total weight. A draw from the whole tree that lands on an eligible client has exactly that
     * distribution, so up to {@value #REDRAWS} such draws are tried (O(log n) each) before an exact
     * linear draw over the eligible slots, which is needed only when they hold little of the total.
     */
    public int pick(RandomGenerator source, IntPredicate eligible) {
        if (competing == 0) {
            return NONE;
        }
        for (int attempt = 0; attempt < REDRAWS; attempt++) {
            int slot = tree.find(source.nextDouble() * tree.total());
            if (eligible.test(clientAt[slot])) {
                return win(slot);
            }
        }
        double total = 0;
        for (int slot = 0; slot < competing; slot++) {
            if (eligible.test(clientAt[slot])) {
                total += tree.weight(slot);
            }
        }
        if (!(total > 0)) {
            return NONE;
        }
        double point = source.nextDouble() * total;
        int last = -1;
        for (int slot = 0; slot < competing; slot++) {
            if (eligible.test(clientAt[slot])) {
                last = slot;
                point -= tree.weight(slot);
                if (point < 0) {
                    return win(slot);
                }
            }
        }
        return win(last);                               // rounding put the point at the very end
    }

    /** The client in {@code slot} wins: its compensation ends, as its new quantum starts. */
    private int win(int slot) {
        int winner = clientAt[slot];
        if (compensation[winner] != 1) {
            compensation[winner] = 1;
            tree.set(slot, value[winner]);
        }
        return winner;
    }

    @Override
    public void charge(int client, long usedNanos, long quantumNanos) {
        checkClient(client);
        if (client >= state.length || state[client] == UNKNOWN) {
            throw new IllegalArgumentException("client " + client + " is not scheduled");
        }
        if (usedNanos < 0) {
            throw new IllegalArgumentException("used time must not be negative: " + usedNanos);
        }
        if (quantumNanos <= 0) {
            throw new IllegalArgumentException("quantum must be positive: " + quantumNanos);
        }
        double fraction = Math.clamp((double) usedNanos / quantumNanos, MIN_FRACTION, MAX_FRACTION);
        compensation[client] = 1 / fraction;
        if (state[client] == COMPETING) {
            tree.set(slotOf[client], weight(client));
        }
    }

    // ---- observation (tests, simulator, snapshots) ----------------------------------------

    /** Number of competing clients. */
    public int competing() {
        return competing;
    }

    public boolean isCompeting(int client) {
        return client >= 0 && client < state.length && state[client] == COMPETING;
    }

    /** The client's weight in the next draw: value × compensation, 0 unless competing. */
    public double weight(int client) {
        return isCompeting(client) ? value[client] * compensation[client] : 0;
    }

    /** The multiplier 1/f a known client carries until its next win (1 when none). */
    public double compensation(int client) {
        checkClient(client);
        return client < state.length && state[client] != UNKNOWN ? compensation[client] : 1;
    }

    /** Sum of the competing clients' weights, as the tree holds it. */
    public double totalWeight() {
        return tree.total();
    }

    /** The tree's own consistency check; for tests. */
    boolean treeConsistent() {
        if (tree.firstInconsistentNode() != 0) {
            return false;
        }
        for (int slot = 0; slot < competing; slot++) {
            int client = clientAt[slot];
            if (slotOf[client] != slot || tree.weight(slot) != weight(client)) {
                return false;
            }
        }
        for (int slot = competing; slot < tree.capacity(); slot++) {
            if (tree.weight(slot) != 0) {
                return false;
            }
        }
        return true;
    }

    // ---- internals ----------------------------------------------------------------------------

    private void stopCompeting(int client) {
        int slot = slotOf[client];
        int last = --competing;
        if (slot != last) {
            int moved = clientAt[last];
            clientAt[slot] = moved;
            slotOf[moved] = slot;
            tree.set(slot, tree.weight(last));
        }
        tree.set(last, 0);
        state[client] = WAITING;
    }

    private void ensureCapacity(int client) {
        if (client < state.length) {
            return;
        }
        int length = Math.max(client + 1, state.length * 2);
        state = Arrays.copyOf(state, length);
        slotOf = Arrays.copyOf(slotOf, length);
        value = Arrays.copyOf(value, length);
        compensation = Arrays.copyOf(compensation, length);
    }

    private static void checkClient(int client) {
        if (client < 0) {
            throw new IllegalArgumentException("client id must not be negative: " + client);
        }
    }
}
