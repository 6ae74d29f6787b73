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
 * quantum is deflated alike, and one that used almost nothing cannot take every lottery. For a slice
 * charged in parts as it ran, f is what the whole slice used ({@link #chargeSliceEnd}), not its last
 * part: a slice that used its quantum and then a little more is owed nothing.
 *
 * <p>Deferred wins: a pick made for a worker that a client may not use (its CPU mask) still draws
 * from every competing client, as one lottery over the whole pool. A client that wins where it may
 * not run is owed that win, and the next pick where it may run pays it in place of the client drawn
 * there, which is owed that win in turn. The client that takes the pick the owed one could not use
 * is advanced it, and gives it back where it is drawn and an owed client may run. So every client
 * gets the wins it draws, a restricted client its share of the whole pool as far as its CPUs allow,
 * and the rest of its CPUs go to the others (max-min, as stride gives through its global pass). A
 * client is owed at most {@value #MAX_DEFERRED} wins: one that cannot use its share then takes
 * every pick on its CPUs and no more, builds no backlog to spend later, and is left out of the
 * draws on the other CPUs, so that the share it cannot use goes to all the other clients in
 * proportion, restricted ones too. A drawn client keeps its compensation until its win is paid.
 */
public final class LotteryScheduler implements ShareScheduler {
    /*
     * Implementation overview [1]
     *
     * Competing clients occupy slots 0 .. competing-1 of a PartialSumTree, packed: a client that
     * leaves gives its slot to the client in the last slot. A slot's weight is
     * value(client) × compensation(client). pick draws point = u × total with u uniform in [0, 1)
     * and descends the tree (O(log n)); the winner's compensation ends there, as its new quantum
     * starts. charge sets compensation = 1 / f, f = used / quantum clamped as documented (the whole
     * slice's time for chargeSliceEnd, rather than the part charged there). A client
     * that leaves keeps its compensation for its next join (a client that blocked early is
     * compensated when it comes back, as in [1] 4.5); remove() forgets it.
     *
     * A pick with an eligibility predicate makes one draw from the whole tree but for the saturated
     * clients (drawWithRoom): those not eligible and owed MAX_DEFERRED already. deferred[client] is
     * the wins the client drew less those it got: positive, it is owed wins (listed in
     * owedClients); negative, it was advanced wins. If the drawn client is not eligible, it is owed
     * one more, with its compensation kept until it is paid, unless no client is eligible: a pick
     * that returns NONE is taken by nobody, so it owes nothing and changes nothing (a worker with
     * no group it may serve would otherwise hand wins to groups drawn while it idles). A pick where
     * an owed client is eligible serves it instead of an eligible drawn client that is not owed
     * itself, and its debt shrinks by one while the drawn client's grows by one. Where no owed
     * client is eligible, the pick is a draw among the eligible clients, and its winner, served in
     * place of a client now owed, is advanced one win (to MAX_DEFERRED at most). Without the two
     * last steps a client that gets such picks on its own workers and is never served in place of
     * an owed one (a client restricted to other workers than another restricted one) would gain on
     * the others. With two workers, a client worth 1/4 that may use only the first is drawn on the
     * second with probability 1/4 and paid on the first, where it also wins its own 1/4: half the
     * first worker, 1/4 of the pool. Owed wins lapse when the client stops competing or is forgiven
     * (forgiveCredit): it had no work to use them, or it may now run where it was drawn; advanced
     * ones lapse only when it stops competing.
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
    /** The most wins a client can be owed for draws it won where it may not run. */
    static final int MAX_DEFERRED = 8;

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
    private int[] deferred = new int[16];
    private int[] owedClients = new int[4];
    private int owedCount;

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

    /** Draws for a worker that may serve the clients {@code eligible} accepts, with this scheduler's own random source. */
    @Override
    public int pick(IntPredicate eligible) {
        return pick(random, eligible);
    }

    @Override
    public int pick(IntPredicate eligible, RandomGenerator source) {
        return pick(source, eligible);
    }

    /**
     * Draws for a worker that may serve only the clients {@code eligible} accepts. The draw is from
     * all competing clients but those that may not run here and are owed all they may be; a drawn client this worker may not serve is owed the win, and an owed
     * client this worker may serve is paid first (see the class comment). When the draw is not
     * eligible and nothing owed is, the pick is among the eligible clients, each with probability
     * its weight over their total: up to {@value #REDRAWS} draws from the whole tree, which have
     * exactly that distribution when they land on an eligible client, then an exact linear draw
     * over the eligible slots, needed only when they hold little of the total. NONE, with nothing
     * changed, when no competing client is eligible.
     */
    public int pick(RandomGenerator source, IntPredicate eligible) {
        if (competing == 0) {
            return NONE;
        }
        int slot = drawWithRoom(source, eligible);
        if (slot < 0) {
            return NONE;                                // every competing client is saturated elsewhere
        }
        int drawn = clientAt[slot];
        if (eligible.test(drawn)) {
            if (owedCount == 0 || deferred[drawn] > 0) {
                return win(slot);
            }
            int owed = mostOwed(eligible);
            if (owed == NONE) {
                return win(slot);
            }
            credit(drawn);                              // it gives its win up: owed it, or an advance repaid
            return payDeferred(owed);
        }
        // The drawn client may not run here and has room for one more owed win (drawWithRoom). Its
        // compensation goes on until the win is paid (payDeferred), since no new quantum of it has
        // started: a client charged a fraction f of its quantum keeps its weight × 1/f in the draws
        // of the workers it may not use too, or it would be owed fewer wins than its CPU share needs.
        int owed = mostOwed(eligible);
        if (owed != NONE) {
            credit(drawn);
            return payDeferred(owed);
        }
        int winner = drawEligible(source, eligible);
        if (winner == NONE) {
            return NONE;                                // nobody took the pick, so nobody is owed it
        }
        credit(drawn);
        if (deferred[winner] > -MAX_DEFERRED) {
            deferred[winner]--;                         // an advance on the drawn client's win, repaid where it is paid
        }
        return winner;
    }

    /**
     * The slot of one draw from the clients that can still take a win from this pick: all but the
     * saturated ones, those that may not run here and are already owed {@value #MAX_DEFERRED} wins.
     * A saturated client cannot use its share, so its weight must not stand for anybody here: drawn
     * on this worker, it would hand the pick to the clients eligible here, and a client restricted
     * to other workers, with room there, would never be owed those wins, so that a group that cannot
     * use its tickets would shrink the share of every other restricted one (max-min, as stride's
     * global pass gives it, leaves a saturated client's unused share to all the others in proportion).
     * Up to {@value #REDRAWS} draws from the whole tree, then an exact linear draw over the other
     * slots; -1 when every competing client is saturated, and so none eligible here.
     */
    private int drawWithRoom(RandomGenerator source, IntPredicate eligible) {
        return drawSlot(source, eligible, true, REDRAWS);
    }

    /** True when {@code client} may not run where {@code eligible} stands for and is owed all it may be. */
    private boolean isSaturated(int client, IntPredicate eligible) {
        return deferred[client] == MAX_DEFERRED && !eligible.test(client);
    }

    /** Among the eligible clients, each with probability its weight over their total; NONE if none is. */
    private int drawEligible(RandomGenerator source, IntPredicate eligible) {
        int slot = drawSlot(source, eligible, false, REDRAWS - 1); // the pick's own draw was the first
        return slot < 0 ? NONE : win(slot);
    }

    /**
     * The slot of a draw among the clients taken: those {@code eligible} accepts or, with
     * {@code withRoom}, those not saturated ({@link #isSaturated}); each with probability its weight
     * over their total. Up to {@code draws} draws from the whole tree, which have exactly that
     * distribution when they land on a client taken, then an exact linear draw over the slots taken;
     * -1 when no competing client is taken.
     */
    private int drawSlot(RandomGenerator source, IntPredicate eligible, boolean withRoom, int draws) {
        int slot;
        for (int attempt = 1; attempt <= draws; attempt++) {
            slot = tree.find(source.nextDouble() * tree.total());
            if (takes(clientAt[slot], eligible, withRoom)) {
                return slot;
            }
        }
        double total = 0;
        for (slot = 0; slot < competing; slot++) {
            if (takes(clientAt[slot], eligible, withRoom)) {
                total += tree.weight(slot);
            }
        }
        if (!(total > 0)) {
            return -1;
        }
        double point = source.nextDouble() * total;
        int last = -1;
        for (slot = 0; slot < competing; slot++) {
            if (takes(clientAt[slot], eligible, withRoom)) {
                last = slot;
                point -= tree.weight(slot);
                if (point < 0) {
                    return slot;
                }
            }
        }
        return last;                                    // rounding put the point at the very end
    }

    private boolean takes(int client, IntPredicate eligible, boolean withRoom) {
        return withRoom ? !isSaturated(client, eligible) : eligible.test(client);
    }

    /**
     * Wins owed to {@code client} for draws it won where it could not run, less the wins it was
     * advanced (negative when those are more); 0 for an unknown client.
     */
    public int deferredWins(int client) {
        checkClient(client);
        return client < state.length ? deferred[client] : 0;
    }

    /** Forgets the wins owed to {@code client}: it may now run where it won them. Wins advanced to it stay owed by it. */
    @Override
    public void forgiveCredit(int client) {
        checkClient(client);
        if (client < state.length && deferred[client] > 0) {
            clearDeferred(client);
        }
    }

    /** One more win owed to {@code client}, or one less advanced to it, up to MAX_DEFERRED owed. */
    private void credit(int client) {
        if (deferred[client] == MAX_DEFERRED) {
            return;
        }
        if (++deferred[client] == 1) {
            if (owedCount == owedClients.length) {
                owedClients = Arrays.copyOf(owedClients, owedCount * 2);
            }
            owedClients[owedCount++] = client;
        }
    }

    /** The eligible client owed the most wins (the first listed of equals), or NONE. */
    private int mostOwed(IntPredicate eligible) {
        int best = NONE;
        for (int i = 0; i < owedCount; i++) {
            int client = owedClients[i];
            if ((best == NONE || deferred[client] > deferred[best]) && eligible.test(client)) {
                best = client;
            }
        }
        return best;
    }

    private int payDeferred(int client) {
        if (--deferred[client] == 0) {
            unlistOwed(client);
        }
        return win(slotOf[client]);
    }

    private void clearDeferred(int client) {
        if (deferred[client] > 0) {
            unlistOwed(client);
        }
        deferred[client] = 0;
    }

    private void unlistOwed(int client) {
        for (int i = 0; i < owedCount; i++) {
            if (owedClients[i] == client) {
                owedClients[i] = owedClients[--owedCount];
                return;
            }
        }
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
        chargeSliceEnd(client, usedNanos, usedNanos, quantumNanos);
    }

    /** Compensates {@code client} for the fraction of a quantum that the whole slice used, {@code sliceNanos}. */
    @Override
    public void chargeSliceEnd(int client, long usedNanos, long sliceNanos, long quantumNanos) {
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
        if (sliceNanos < usedNanos) {
            throw new IllegalArgumentException("a slice's time must include the part charged at its end: "
                    + sliceNanos + " < " + usedNanos);
        }
        double fraction = Math.clamp((double) sliceNanos / quantumNanos, MIN_FRACTION, MAX_FRACTION);
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
        clearDeferred(client);
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
        deferred = Arrays.copyOf(deferred, length);
    }

    private static void checkClient(int client) {
        if (client < 0) {
            throw new IllegalArgumentException("client id must not be negative: " + client);
        }
    }
}
