package dev.rota.share;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * Stride scheduling: deterministic proportional share. Each competing client advances a virtual time,
 * its pass, by {@code STRIDE1 / value} per quantum of CPU time it is charged; the client with the
 * least pass runs next. For two clients, each one's CPU time stays, at every moment, within one
 * quantum of the share their strides stand for; strides are rounded to whole pass units, which
 * moves that share from the values' by at most w / 2^41 of a quantum per quantum (w the larger
 * scaled value, at most 2^31: 2^-10 in the worst case, where a value of 2^30 base tickets or more
 * competes at shift 0; 2^-25 right after a rescale; 1.4e-10 for 300 tickets at shift 0). Values are
 * scaled to the largest competing one, so shares follow the ratios of the values whatever their
 * unit, down to values 2^16 to 2^47 below the largest (see the class source for what holds exactly).
 */
public final class StrideScheduler implements ShareScheduler {
    /*
     * Implementation overview [1]
     *
     *   stride(c)    = STRIDE1 / scaled(c), scaled(c) = value(c) × 2^-shift
     *   pick         = the competing client of least pass (PassHeap, O(1); updates O(log n))
     *   charge(c, u) = pass(c) += stride(c) × u / quantum;
     *                  globalPass += STRIDE1 / (sum of competing worths) × u / quantum, where c competes
     *   worth(c)     = STRIDE1 / stride(c): the scaled value c's rounded, clamped stride stands for
     *   join         : pass = globalPass + remain, where remain = stride for a new client
     *   leave        : remain = pass − globalPass, kept until remove()
     *   new value    : remain' = remain × stride' / stride, so a client keeps its relative position
     *
     * Scale:
     *   Shares depend only on the ratios of the values, so the stride is taken from the value scaled
     *   by 2^-shift, with shift chosen so that the largest competing value scales into the window
     *   [2^0, 2^31) (its binary exponent less shift in [WINDOW_LOW, WINDOW_HIGH]). shift starts at 0,
     *   where a value's stride is strideOf(value); it changes only when the largest competing value
     *   leaves the window, and then to centre it at 2^15 (WINDOW_CENTER): a rescale. A rescale gives
     *   every competing client the stride of its value at the new shift and multiplies its lag
     *   (pass − globalPass) by newStride / oldStride, as a change of value does, so each keeps its
     *   position measured in its own quanta; carries are dropped (less than one pass unit each), the
     *   sum of worths is summed afresh and the heap is reordered: O(n log n). It takes a change of
     *   the largest value by a factor of more than 2^15 after a rescale (at shift 0, a largest value
     *   outside [1, 2^31)), so rescales are rare; between them every operation costs what it did
     *   without the scale.
     *   The largest value is tracked by a count of competing values per binary exponent (2098 of
     *   them, subnormals' true exponents down to -1074 included) and the greatest exponent counted: a join or a new value counts in O(1); when the last
     *   value of the greatest exponent goes, the scan down to the next counted exponent stays inside
     *   the window, or else ends in a rescale, which costs more than the scan.
     *   A departure (a leave, a removal, a value that fell) that takes the largest below the window
     *   rescales only after LOW_PATIENCE charges with it still below: a group that goes idle between
     *   bursts and comes back sooner costs no rescale at either end (an arrival above the window,
     *   or below it, rescales at once).
     *   Only competing values count. A waiting client keeps its remain in the pass units of the shift
     *   in force when it left, together with the stride it had then; a rejoin rescales the remain by
     *   newStride / thatStride, which is the product of any rescales in between, so waiting clients
     *   cost nothing at a rescale, and a client that has gone quiet does not hold the scale.
     *
     * Fixed point and overflow:
     *   STRIDE1 = 2^40. A scaled value w gives stride round(2^40 / w), clamped to [1, MAX_STRIDE =
     *   2^56]. The largest competing value scales into [2^0, 2^31), so its stride lies in [2^9, 2^40],
     *   and no competing client's stride is ever clamped to 1 or shorter than 2^9, whatever the
     *   values' unit.
     *   Rounding moves a stride by at most half a unit, a relative error of w / 2^41: at most 2^-10
     *   for the largest value at the top of the window; 2^-25 right after a rescale; at shift 0,
     *   v / 2^41 as ever (below 1e-6 for v <= 2^20, a million base tickets). Smaller values have
     *   longer strides and smaller errors.
     *   Clamping: a value competes as itself down to a scaled 2^-16 (stride 2^56). Every value at
     *   least 2^-16 of the largest competing one is therefore exact (up to rounding); right after a
     *   rescale, every value at least 2^-31 of it; values below 2^-47 of it are always clamped. The
     *   worst case is the bottom of the window, e.g. a largest value of 1 base unit at shift 0. A
     *   clamped client competes as a scaled 2^-16, more than its value: against a client c it gets
     *   quanta in the proportion 1 : 2^16 × scaled(c) instead of value : value(c).
     *   ShareLedger.FLOOR_VALUE (1e-9): a floor client next to a funded client c gets quanta in the
     *   proportion 1 : min(value(c) / 1e-9, 2^16 × scaled(c)), its first one included (it joins one
     *   of its strides ahead). So a funded client worth 1 base unit or more runs 2^16 quanta or more
     *   (65 s at a 1 ms quantum; 2^22.6 for the 100 tickets of a default group) for each one of the
     *   floor client at shift 0; about 2^30 where the floor client came first and the funded
     *   client's arrival rescaled (the proportion of the values, unclamped). "Only when no funded
     *   group has work" thus holds for that many quanta of uninterrupted funded work, not for ever.
     *   A funded client whose own value is clamped competes as the floor does. A scheduler whose only
     *   competing clients have the floor value scales to them, and they share as equal values do.
     *   Charges are exact: stride × used is formed in 128 bits (MulDiv) and the remainder of the
     *   division by the quantum is carried to the client's next charge, so partial quanta lose no
     *   time. A change of value, quantum or shift discards less than one pass unit. The global
     *   stride is not rounded: the competing passes advance together by exactly STRIDE1 / (sum of
     *   worths) per quantum, so globalPass advances by that in double precision, its fraction of a
     *   unit carried; a global stride rounded to whole units would lose up to half a unit per
     *   quantum, and globalPass would drift from the passes without bound (a client joining at
     *   globalPass + stride after hours of short strides would then land many quanta off).
     *   Lags are bounded (while placing by the global pass; "CPU masks" bounds the spread
     *   otherwise): every write keeps |pass − globalPass| and |remain| <= MAX_LAG = 2^61,
     *   saturating a single charge there: after MAX_LAG / stride quanta, at least 2^21 for the
     *   largest value (stride <= 2^40), 2^5 for a clamped stride. A rescale clamps the same way a lag
     *   worth more than MAX_LAG / newStride of the client's own quanta.
     *   While no restricted client competes (see "CPU masks"), globalPass only moves forward. When
     *   charges go to the client of least pass, it advances at least as fast as globalPass (its
     *   stride is at least the global stride, as its worth is part of the sum of worths; rounding
     *   costs at most one unit per charge). A pick among eligible clients that passes over some
     *   (a caller not told of placements) lets them fall behind globalPass for as long as that
     *   lasts; so after moving globalPass a charge raises every pass more than MAX_LAG behind it to
     *   MAX_LAG behind (credit saturates as debt does), and no pass falls more than MAX_LAG behind.
     *   The sum is of worths, not of values: a clamped stride stands for a larger
     *   value than the client's, and a global stride taken from the values would then run ahead of
     *   every client's pass until the differences wrapped around. The global stride is at most 2^40
     *   while the largest competing value is inside the window (the sum is at least the largest
     *   scaled value, 2^0); while a rescale waits on a largest value below it (LOW_PATIENCE charges
     *   at most), it may be as long as MAX_STRIDE.
     *   A client that no longer competes may still be charged for a slice that ends after it left: its
     *   remain advances, the global pass does not, since that time went to nobody who competes (and a
     *   move of both would count the slice against the client twice when it rejoins). Any two passes
     *   thus differ by at most 2^62 < 2^63, and comparing passes by signed difference (PassHeap) stays
     *   correct when the longs themselves wrap around, as globalPass does: after 2^23 quanta or more
     *   at a global stride of 2^40, sooner while a rescale waits.
     *   The total of competing worths (totalValue) is a compensated (Neumaier) sum, so leaves and
     *   joins do not leave rounding residue in the global stride.
     *
     * CPU masks (placing by reference):
     *   A client whose mask leaves out some workers is restricted (Placement, set by the pool). Where
     *   restricted clients compete, sets of workers may be served at different paces: a worker
     *   whose clients hold less value advances their passes faster. No single global pass fits
     *   them all (taken from every competing worth, it runs behind the fast sets and ahead of the
     *   slow ones without bound; pulled up to the passes picked, it fits the fastest set and leaves
     *   the others further off). So while any restricted client competes, globalPass is set aside
     *   and a client is placed against its reference instead:
     *     least(w)     = the competing client of least pass, the client itself left out, that
     *                    worker w may serve: where w's clients stand now (w serves that one next);
     *                    heavy if its value is at least the client's, light if less
     *     reference(c) = over the workers c may use, the lowest light least(w), unless a heavy one
     *                    stands higher: then the highest heavy one; none when no other competing
     *                    client may use any of those workers
     *     near(c)      = of those least(w), the one whose pass is nearest c's: the client c
     *                    stands with
     *     tolerance    = stride(c) + sincePick(c) + stride(near) + lastCharge(near): how far
     *                    apart two clients that share a worker may stand (sincePick: what c was
     *                    charged since a pick last chose it; near's pass trails by up to its last
     *                    charge while a slice of it runs)
     *     leave        : remain = pass − pass(near), and c keeps near as its anchor; but where c
     *                    stands below near by more than the tolerance, remain = −stride and no
     *                    anchor; with no near, remain 0 and no anchor (it owed nobody)
     *     join         : pass = pass(anchor) + remain while the anchor competes and may use one
     *                    of c's workers (so a client that leaves and comes back keeps its place
     *                    beside the client it stood with, lead and debt included; an id removed
     *                    and given to another client is no anchor); else reference + remain,
     *                    remain cut to stride(c) + sincePick(c) where an anchor was lost (its lead
     *                    was over a client it no longer meets); a new client's remain is its stride; with no
     *                    reference, the least competing pass + remain (any pass would do: it shares
     *                    no worker; this one keeps it inside the spread)
     *     new value    : the lag from near is scaled as the lag from globalPass is
     *     forgiveCredit: a competing client rises to its reference's pass if below it, and comes
     *                    down to reference + stride(c) + sincePick(c) if above it by more than the
     *                    tolerance (it stands as a joiner would, no better and no worse); a
     *                    waiting one rises to remain 0
     *   A client competes at par on its reference's worker from its first turn; where the clients
     *   stand higher it runs ahead of them until it reaches them, where they stand lower it waits
     *   until they reach it. Heavy clients lose nothing to a joiner: none stands above its
     *   reference. Against light clients a joiner would lose the most by waiting (its share of
     *   their workers is most of them, and their passes rise slowly), and they lose the least by
     *   waiting for it (their share is small), so the reference is the lowest of them. Equal
     *   values count as heavy: a joiner among equals waits and takes no turn from them. Known
     *   limits: a joiner beside light clients only takes every turn of the ones that stand higher
     *   until it reaches them (its value over theirs times as long as they have been apart), as
     *   the global pass did; and the rule turns at equal values, so a joiner a little heavier
     *   than every client it meets is placed unlike one a little lighter.
     *   Leaves keep leads exactly, as the global pass did: a lead over the clients of a worker is
     *   what keeps a client that was served elsewhere from taking their turns, and a client that
     *   left and came back without it would take them (a search found a client that came back
     *   after each of a peer's charges gaining half of a worker that way). Credit beyond the
     *   tolerance is not kept: a pass that far below every least(w) of its workers would have
     *   been served at once, so it is the pace of another worker (the last of a set of clients to
     *   go idle, measured from a client that ran ahead elsewhere), not time owed; kept, it would
     *   take every turn of its workers for as long. Known limit: while a client is away its place
     *   follows its anchor's pass, not the pace of the whole worker, so where the anchor was
     *   catching up with a client that had just run a long slice, the client comes back without
     *   the credit it had against that one (a client away a fifth of the time beside a peer in
     *   slices of 64 quanta and one in slices of 1,024 got 83 % of its share of the time it was
     *   there; the global pass, in the same run, 116 %).
     *   The cost is one look per worker the client may use (O(1) each while the least pass is
     *   eligible there, O(k log k) for k passed over), at joins, leaves, changes of value and
     *   forgiveness only: microseconds for tens of workers and hundreds of clients, under the
     *   caller's lock. Picks and charges cost what they did.
     *   Charges then advance passes with no bound from globalPass, and passes of sets served at
     *   different paces part without bound. Once the spread of the competing passes exceeds
     *   SPREAD_LIMIT (2^62), PassSpread narrows the widest gaps between consecutive passes to one
     *   common width, so that the spread is SPREAD_TARGET (2^60): every pair keeps its order and
     *   every gap narrower than the width is kept exactly, so ties stay ties and, while the width
     *   is a unit or more, no two passes come to tie. Only a lead of at least 2^60 / n pass units
     *   is cut: 2^20 / n quanta for a client of stride 2^40 (a value of 1 at shift 0), 2^51 / n for
     *   the shortest competing stride, 2^4 / n for a clamped one; the global pass clamps every
     *   lead to MAX_LAG instead, and clients clamped there tie. After every step that moves a pass
     *   (a charge, a join, a change of value, forgiveness) the spread is checked, and one such step
     *   moves a pass by at most MAX_LAG from inside the spread, so the spread stays below
     *   2^62 + 2^61 < 2^63 and passes compare by signed difference. A rescale narrows the spread
     *   first, to SPREAD_TARGET over the largest newStride / oldStride of the competing clients,
     *   so that no lag it scales from the least pass reaches MAX_LAG: where strides grow by 2^d,
     *   leads of up to 2^(60 − d) units of the old scale are kept, 2^60 of the new.
     *   When the last restricted client leaves (or is freed), the spread is narrowed to
     *   SPREAD_TARGET < MAX_LAG and globalPass starts again at the least pass, so that the
     *   global-pass rules above hold from there on. A caller that sets no Placement gets the
     *   global pass throughout.
     *
     * References: [1] C. A. Waldspurger, W. E. Weihl, "Stride Scheduling: Deterministic
     * Proportional-Share Resource Management", MIT/LCS/TM-528, 1995.
     */

    /** Pass units per quantum for a client worth one base unit, at shift 0. */
    public static final long STRIDE1 = 1L << 40;
    /**
     * 2^56: 16 binary orders of room below the bottom of the window, so that a floor value next to a
     * funded value of 1 loses for 2^16 quanta; a clamped stride still takes 2^5 quanta to reach MAX_LAG.
     */
    static final long MAX_STRIDE = 1L << 56;
    static final long MAX_LAG = 1L << 61;
    /**
     * While restricted clients compete: the spread of the competing passes past which the widest
     * gaps between them are narrowed (PassSpread), and the spread they are narrowed to. One step
     * moves a pass by at most MAX_LAG, so the spread stays below LIMIT + MAX_LAG < 2^63 between
     * checks; TARGET leaves room for a rescale that lengthens strides (see "CPU masks").
     */
    static final long SPREAD_LIMIT = 1L << 62;
    static final long SPREAD_TARGET = 1L << 60;

    /**
     * Bounds of the largest competing value's binary exponent − shift. At shift 0 they keep values of
     * 1 to 2^31 base units, the usual ones, at the strides they always had (STRIDE1 per base unit);
     * 2^31 gives the largest stride 2^9, the shortest kept (rounding error 2^-10).
     */
    static final int WINDOW_LOW = 0;
    static final int WINDOW_HIGH = 30;
    /** Where a rescale puts the largest value: 15 binary orders from either edge, so rescales are rare. */
    static final int WINDOW_CENTER = 15;
    /** The shortest stride a competing client can have: the largest value at the top of the window. */
    static final long MIN_COMPETING_STRIDE = STRIDE1 >> (WINDOW_HIGH + 1);

    private static final byte UNKNOWN = 0;
    private static final byte COMPETING = 1;
    private static final byte WAITING = 2;

    /** Offset of a value's binary exponent (-1074 for Double.MIN_VALUE up to 1023) into exponentCount. */
    private static final int EXPONENT_BIAS = 1074;
    /**
     * Charges a largest value below the window waits for its downward rescale: a group that goes
     * idle and comes back within them (a burst of tasks at a time) costs no rescale at either end.
     */
    static final int LOW_PATIENCE = 64;
    private static final int NO_EXPONENT = Integer.MIN_VALUE;

    private final PassHeap heap = new PassHeap();
    private byte[] state = new byte[16];
    /** A known client's last positive value, in base units (a waiting client's is the one it left with). */
    private double[] value = new double[16];
    /** A competing client's worth in the total: STRIDE1 / stride. */
    private double[] worth = new double[16];
    /** A competing client's stride at the current shift; a waiting client's at the shift it left at. */
    private long[] stride = new long[16];
    /** remain of a waiting client: pass − globalPass when it left, in the pass units of that time. */
    private long[] remain = new long[16];
    /** Remainder of stride × used not yet turned into pass, in units of 1/quantum. */
    private long[] carry = new long[16];
    /** Pass a client has been charged since a pick last chose it (saturating at MAX_LAG): see "CPU masks". */
    private long[] sincePick = new long[16];
    /** Pass of a client's last charge: how far its pass may trail its place while a slice runs. */
    private long[] lastCharge = new long[16];
    /** A waiting client's anchor, the client its remain is measured from, or NONE (see "CPU masks"). */
    private int[] anchor = new int[16];
    /** The anchor's generation when it became one: a removed id may come back as another client. */
    private int[] anchorGeneration = new int[16];
    /** Times each id has been removed. */
    private int[] generation = new int[16];
    /** Scratch for {@link #rescale}: the competing clients, in heap order as it began. */
    private int[] rescaled = new int[16];

    /** Competing values per binary exponent (exponentOf, subnormals' true one included), plus EXPONENT_BIAS. */
    private final int[] exponentCount = new int[Double.MAX_EXPONENT + EXPONENT_BIAS + 1];
    /** Charges since the largest competing value fell below the window by a departure; -1 when it has not. */
    private int chargesBelowWindow = -1;
    private int counted;
    /** Greatest binary exponent of a competing value, or NO_EXPONENT. */
    private int maxExponent = NO_EXPONENT;
    /** Strides are taken from value × 2^-shift. */
    private int shift;

    /** Where clients may run; null: everywhere (see "CPU masks"). */
    private Placement placement;
    /** A competing client's mask restricts it (read when it joins, and anew in forgiveCredit). */
    private boolean[] restricted = new boolean[16];
    /** Competing clients that are restricted: while any is, passes are placed by reference (see "CPU masks"). */
    private int restrictedCompeting;
    /** At or above every competing pass, and never more than the spread above the greatest. */
    private long passCeiling;
    private final LeastOnWorker leastOnWorker = new LeastOnWorker();

    private double totalValue;
    private double totalValueError;
    /** STRIDE1 / (sum of competing worths), unrounded: the rate at which the competing passes advance together (see above). */
    private double globalStride;
    private long globalPass;
    /** The fraction of a pass unit of globalPass not yet added, in [0, 1). */
    private double globalCarry;

    public StrideScheduler() {
        this(0);
    }

    /** A scheduler whose global pass starts at {@code initialGlobalPass}; tests start it near wrap-around. */
    StrideScheduler(long initialGlobalPass) {
        globalPass = initialGlobalPass;
    }

    @Override
    public void setValue(int client, double newValue) {
        checkClient(client);
        checkValue(newValue);
        ensureCapacity(client);
        switch (state[client]) {
            case UNKNOWN -> {
                if (newValue > 0) {
                    countIn(newValue);
                    keepInWindow(true);                  // rescales the others; client is not in the heap yet
                    value[client] = newValue;
                    stride[client] = strideAt(newValue);
                    carry[client] = 0;
                    sincePick[client] = 0;
                    lastCharge[client] = 0;
                    compete(client, stride[client], NONE);
                }
            }
            case WAITING -> {
                if (newValue > 0) {
                    countIn(newValue);
                    keepInWindow(true);
                    value[client] = newValue;
                    long s = strideAt(newValue);
                    remain[client] = scale(remain[client], s, stride[client]);
                    sincePick[client] = scale(sincePick[client], s, stride[client]);
                    stride[client] = s;
                    carry[client] = 0;
                    compete(client, remain[client], anchor[client]);
                }
            }
            default -> {
                if (newValue == 0) {
                    stopCompeting(client);
                } else {
                    double oldValue = value[client];
                    value[client] = newValue;
                    countIn(newValue);                   // in before out: the scan down stops at newValue
                    countOut(oldValue);
                    if (!keepInWindow(newValue >= oldValue)) { // a rescale gives client its new stride too
                        restride(client);
                    }
                }
            }
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
        generation[client]++;                            // anchors naming this id no longer hold
    }

    @Override
    public int pick() {
        return heap.size() == 0 ? NONE : picked(heap.peek());
    }

    /** The eligible client of least pass: O(1) when it is the least overall, else O(k log k) for k passed over. */
    @Override
    public int pick(IntPredicate eligible) {
        int client = heap.firstMatching(eligible);
        return client < 0 ? NONE : picked(client);
    }

    private int picked(int client) {
        sincePick[client] = 0;
        return client;
    }

    /**
     * While a restricted client competes, passes are placed against the clients each one shares
     * workers with, not against the global pass (see "CPU masks"); {@code null} frees every client.
     */
    @Override
    public void setPlacement(Placement newPlacement) {
        placement = newPlacement;
        int[] clients = competingClients();
        for (int i = 0, n = heap.size(); i < n; i++) {
            refreshRestriction(clients[i]);
        }
    }

    @Override
    public void charge(int client, long usedNanos, long quantumNanos) {
        checkKnown(client);
        if (usedNanos < 0) {
            throw new IllegalArgumentException("used time must not be negative: " + usedNanos);
        }
        if (quantumNanos <= 0) {
            throw new IllegalArgumentException("quantum must be positive: " + quantumNanos);
        }
        long advance = advance(stride[client], usedNanos, quantumNanos, carry, client);
        sincePick[client] = Math.min(sincePick[client] + advance, MAX_LAG);
        lastCharge[client] = advance;
        if (state[client] != COMPETING) {                // see "A client that no longer competes" above
            remain[client] = Math.min(remain[client] + advance, MAX_LAG);
        } else if (byReference()) {
            movePass(client, heap.pass(client) + advance);
        } else {
            long lag = Math.min(heap.pass(client) - globalPass + advance, MAX_LAG);
            heap.update(client, globalPass + lag);
            double exact = globalStride * ((double) usedNanos / quantumNanos) + globalCarry;
            long q;
            if (exact >= MAX_LAG) {
                q = MAX_LAG;
                globalCarry = 0;
            } else {
                q = (long) exact;
                globalCarry = exact - q;
            }
            globalPass += q;
            saturateCredit();
        }
        if (chargesBelowWindow >= 0 && ++chargesBelowWindow >= LOW_PATIENCE) {
            keepInWindow(true);                          // the largest stayed below the window: rescale now
        }
    }

    /**
     * Credit is a pass behind the other clients'. A client confined to some CPUs falls ever further
     * behind for as long as it is confined (the others run, and are charged, where it may not); on
     * release it would take the whole pool until it had caught up. Forgiving moves it up to the
     * lowest pass among the other competing clients, so that it ranks with the client that is
     * furthest behind and the proportion holds again from the next quantum. A waiting client's
     * remain is raised the same way, measured from the global pass (in today's pass units, which a
     * rescale since it left may have changed; or, for a client so far above today's scale that its
     * stride there would round to a few units, converted exactly into the units it left with).
     */
    @Override
    public void forgiveCredit(int client) {
        if (client < 0 || client >= state.length || state[client] == UNKNOWN) {
            return;
        }
        if (state[client] == COMPETING) {
            refreshRestriction(client);                  // its mask may have changed: see Placement
        }
        if (byReference() || (state[client] == WAITING && placement != null && placement.isRestricted(client))) {
            forgiveByReference(client);
            return;
        }
        int next = heap.firstMatching(other -> other != client);
        if (next < 0) {
            return;                                      // nobody else competes: nobody to owe
        }
        long floor = heap.pass(next);
        if (state[client] == COMPETING) {
            if (heap.pass(client) - floor < 0) {         // a difference: passes may wrap around
                heap.update(client, floor);
            }
        } else {
            long s = strideAt(value[client]);
            long floorLag = clampLag(floor - globalPass);
            if (s < MIN_COMPETING_STRIDE) {
                // Far above today's scale (no competing stride is that short): today's stride
                // would be rounded to a few units, so convert the floor into the client's own units
                // with today's exact stride instead, and keep those units.
                double exact = STRIDE1 / Math.scalb(value[client], -shift);
                double ownFloor = floorLag * (stride[client] / exact);
                if (remain[client] < ownFloor) {
                    remain[client] = clampLag((long) ownFloor); // a cast saturates; clampLag bounds it
                }
            } else if (scale(remain[client], s, stride[client]) < floorLag) {
                remain[client] = floorLag;
                if (s != stride[client]) {               // a rescale since it left: take today's units
                    sincePick[client] = scale(sincePick[client], s, stride[client]);
                    stride[client] = s;
                    carry[client] = 0;
                }
            }
        }
    }

    // ---- observation (tests, simulator, snapshots) ----------------------------------------

    /** Number of competing clients. */
    public int competing() {
        return heap.size();
    }

    public boolean isCompeting(int client) {
        return heap.contains(client);
    }

    public long globalPass() {
        return globalPass;
    }

    /** The client's pass; requires it to compete. */
    public long pass(int client) {
        if (!heap.contains(client)) {
            throw new IllegalArgumentException("client " + client + " is not competing");
        }
        return heap.pass(client);
    }

    /**
     * pass − globalPass for a competing client, the kept remain for a waiting one (in the pass units
     * of the shift it left at, those of {@link #stride(int)}). While restricted clients compete,
     * globalPass is set aside and a competing client's figure here means nothing; a waiting
     * client's remain is then measured from its reference (see "CPU masks").
     */
    public long remain(int client) {
        checkKnown(client);
        return state[client] == COMPETING ? heap.pass(client) - globalPass : remain[client];
    }

    /** A competing client's stride at the current shift; a waiting client's at the shift it left at. */
    public long stride(int client) {
        checkKnown(client);
        return stride[client];
    }

    /**
     * Stride of a client worth {@code value} base units at shift 0, the scale in force while the
     * largest competing value lies in [1, 2^31) and none has left it; see the class comment.
     */
    public static long strideOf(double value) {
        double exact = STRIDE1 / value;
        if (exact >= MAX_STRIDE) {
            return MAX_STRIDE;
        }
        return Math.max(1, Math.round(exact));
    }

    // ---- internals ----------------------------------------------------------------------------

    /** Stride of {@code v} base units at the current shift. */
    private long strideAt(double v) {
        return strideOf(Math.scalb(v, -shift));
    }

    /**
     * Makes a client compete {@code lag} from its place: while placing by reference, from
     * {@code leftWith}, the anchor it left with (or NONE), while that one still competes and shares
     * a worker with it, else from its reference (see "CPU masks").
     */
    private void compete(int client, long lag, int leftWith) {
        state[client] = COMPETING;
        worth[client] = worthOf(stride[client]);
        addToTotal(worth[client]);
        markRestricted(client, placement != null && placement.isRestricted(client)); // false until now: see stopCompeting
        if (byReference()) {
            int kept = leftWith != NONE && generation[leftWith] == anchorGeneration[client]
                    && heap.contains(leftWith) ? leftWith : NONE;
            scanLeast(client, kept);
            int reference = anchorShared ? kept : scanReference;
            if (leftWith != NONE && !anchorShared) {
                lag = Math.min(lag, ownDebt(client));    // its lead was over a client it no longer meets
            }
            long base = reference >= 0 ? heap.pass(reference)
                    : heap.size() > 0 ? heap.pass(heap.peek()) // alone on its workers: kept inside the spread
                    : globalPass;
            heap.add(client, base + clampLag(lag));
            if (heap.size() == 1) {
                passCeiling = heap.pass(client);
            }
            movePass(client, heap.pass(client));         // raises the ceiling, and bounds the spread
        } else {
            heap.add(client, globalPass + clampLag(lag));
        }
    }

    private void stopCompeting(int client) {
        if (byReference()) {
            scanLeast(client, NONE);
            int near = scanNearest;
            anchor[client] = NONE;
            if (near < 0) {
                remain[client] = 0;                      // alone on its workers: it owes nobody, nobody owes it
            } else if (heap.pass(client) - heap.pass(near) < -tolerance(client, near)) {
                remain[client] = -stride[client];        // credit from another worker's pace: not owed
            } else {
                remain[client] = clampLag(heap.pass(client) - heap.pass(near));
                anchor[client] = near;
                anchorGeneration[client] = generation[near];
            }
        } else {
            remain[client] = clampLag(heap.pass(client) - globalPass);
            anchor[client] = NONE;
        }
        heap.remove(client);
        state[client] = WAITING;
        addToTotal(-worth[client]);
        markRestricted(client, false);
        countOut(value[client]);
        keepInWindow(false);                             // the largest may have left: the rest rescale, later
    }

    // ---- placing by reference (CPU masks) -------------------------------------------------------

    private boolean byReference() {
        return restrictedCompeting > 0;
    }

    /** Re-reads whether a competing client is restricted; entering or leaving placement by reference. */
    private void refreshRestriction(int client) {
        markRestricted(client, placement != null && placement.isRestricted(client));
    }

    /**
     * Counts a client as restricted or not. The first restricted client begins placing by reference
     * (the ceiling is found from the passes as they are); the last to go ends it.
     */
    private void markRestricted(int client, boolean now) {
        if (now == restricted[client]) {
            return;
        }
        restricted[client] = now;
        if (now) {
            if (restrictedCompeting++ == 0) {
                passCeiling = greatestPass();
            }
        } else if (--restrictedCompeting == 0) {
            placeByGlobalPassAgain();
        }
    }

    /**
     * The last restricted client has gone: the global pass, not kept meanwhile, starts again at the
     * least pass, with every pass inside the lags the global pass bounds (SPREAD_TARGET < MAX_LAG).
     */
    private void placeByGlobalPassAgain() {
        if (heap.size() > 0) {
            passCeiling = PassSpread.bound(heap, SPREAD_TARGET);
            globalPass = heap.pass(heap.peek());
        }
        globalCarry = 0;
    }

    /** Results of {@link #scanLeast}. */
    private int scanReference;
    private int scanNearest;
    private boolean anchorShared;

    /**
     * Looks at least(w) for every worker w that {@code client} may use (the competing client of least
     * pass, the client itself left out, that w may serve: where w's clients stand now, as w serves
     * that one next) and sets: scanReference, the client's reference (see "CPU masks": the lowest
     * light one, unless a heavy one stands higher, then the highest heavy one), scanNearest, the
     * one whose pass is nearest the client's (for a competing client), and anchorShared, whether
     * {@code anchorClient} (a competing client, or NONE) may use one of those workers too. Both
     * clients are NONE when no other competing client may use any of those workers.
     */
    private void scanLeast(int client, int anchorClient) {
        int highestHeavy = NONE;
        int lowestLight = NONE;
        int nearest = NONE;
        long nearestDistance = Long.MAX_VALUE;
        boolean anchorFound = false;
        boolean competing = heap.contains(client);      // a joiner is not in the heap yet
        LeastOnWorker least = leastOnWorker;
        least.excluded = client;
        for (int w = 0, n = placement.workers(); w < n; w++) {
            if (!placement.allows(client, w)) {
                continue;
            }
            least.worker = w;
            int found = heap.firstMatching(least);
            if (found < 0) {
                continue;
            }
            anchorFound |= anchorClient != NONE && placement.allows(anchorClient, w);
            if (value[found] >= value[client]) {
                if (highestHeavy < 0 || heap.pass(found) - heap.pass(highestHeavy) > 0) {
                    highestHeavy = found;
                }
            } else if (lowestLight < 0 || heap.pass(found) - heap.pass(lowestLight) < 0) {
                lowestLight = found;
            }
            if (competing) {
                long distance = Math.abs(heap.pass(client) - heap.pass(found)); // < 2^63: the spread bound
                if (distance < nearestDistance) {
                    nearestDistance = distance;
                    nearest = found;
                }
            }
        }
        scanReference = lowestLight < 0 ? highestHeavy
                : highestHeavy < 0 || heap.pass(highestHeavy) - heap.pass(lowestLight) <= 0 ? lowestLight
                : highestHeavy;
        scanNearest = nearest;
        anchorShared = anchorFound;
    }

    /**
     * How far apart two clients that share a worker may stand: a stride of each, what the client was
     * charged since its last pick, and the other's last charge (its pass trails while a slice runs).
     * Each term is at most MAX_LAG = 2^61, so the sum does not overflow.
     */
    private long tolerance(int client, int other) {
        return stride[client] + sincePick[client] + stride[other] + lastCharge[other];
    }

    /** The debt a client's own charges account for: a stride, and what it was charged since its last pick. */
    private long ownDebt(int client) {
        return Math.min(stride[client] + sincePick[client], MAX_LAG);
    }

    /** Accepts the competing clients other than {@code excluded} that may run on {@code worker}. */
    private final class LeastOnWorker implements IntPredicate {
        int worker;
        int excluded;

        @Override
        public boolean test(int other) {
            return other != excluded && placement.allows(other, worker);
        }
    }

    /**
     * forgiveCredit while placing by reference: a competing client rises to its reference's pass if
     * below it, and comes down to reference + its own debt if above it by more than the tolerance;
     * a waiting one rises to a remain of 0.
     */
    private void forgiveByReference(int client) {
        if (state[client] == WAITING) {
            remain[client] = Math.max(remain[client], 0);
            return;
        }
        scanLeast(client, NONE);
        int reference = scanReference;
        if (reference < 0) {
            return;
        }
        long low = heap.pass(reference);
        long lead = heap.pass(client) - low;
        if (lead < 0) {
            movePass(client, low);                       // credit: forgiven
        } else if (lead > tolerance(client, reference)) {
            movePass(client, low + ownDebt(client));     // a lead from another pace: not debt
        }
    }

    /** While placing by reference: moves a competing client's pass, and bounds the spread. */
    private void movePass(int client, long pass) {
        heap.update(client, pass);
        raiseCeiling(pass);
        if (passCeiling - heap.pass(heap.peek()) > SPREAD_LIMIT) {
            passCeiling = PassSpread.bound(heap, SPREAD_TARGET);
        }
    }

    private void raiseCeiling(long pass) {
        if (pass - passCeiling > 0) {
            passCeiling = pass;
        }
    }

    /** The greatest competing pass (by signed difference from the least), or the ceiling as it was. */
    private long greatestPass() {
        if (heap.size() == 0) {
            return passCeiling;
        }
        long least = heap.pass(heap.peek());
        long spread = 0;
        for (int slot = 0; slot < heap.size(); slot++) {
            spread = Math.max(spread, heap.pass(heap.clientAt(slot)) - least);
        }
        return least + spread;
    }

    /** The competing clients, in heap order as it is now, in {@code rescaled} (reused scratch). */
    private int[] competingClients() {
        int n = heap.size();
        if (rescaled.length < n) {
            rescaled = new int[Math.max(n, 2 * rescaled.length)];
        }
        for (int slot = 0; slot < n; slot++) {
            rescaled[slot] = heap.clientAt(slot);
        }
        return rescaled;
    }

    /**
     * Raises every pass more than MAX_LAG behind the global pass to MAX_LAG behind it: a client
     * passed over by picks it may not take builds no more credit than that (see "Lags are
     * bounded"). The least pass is checked in O(1); each client raised costs O(log n).
     */
    private void saturateCredit() {
        while (heap.size() > 0 && heap.pass(heap.peek()) - globalPass < -MAX_LAG) {
            heap.update(heap.peek(), globalPass - MAX_LAG);
        }
    }

    /**
     * Gives a competing client its new value's stride; it keeps its place in its own quanta, measured
     * from the global pass, or while placing by reference from near, the client it stands with (its
     * own pass when it has none: alone on its workers, its place is its own).
     */
    private void restride(int client) {
        if (!byReference()) {
            restrideAround(client, globalPass);
            return;
        }
        scanLeast(client, NONE);
        int near = scanNearest;                          // the lag from the client it stands with
        restrideAround(client, near >= 0 ? heap.pass(near) : heap.pass(client));
        movePass(client, heap.pass(client));
    }

    /** Gives a competing client its value's stride at this shift, its lag from {@code base} scaled with it. */
    private void restrideAround(int client, long base) {
        long s = strideAt(value[client]);
        long lag = scale(heap.pass(client) - base, s, stride[client]);
        sincePick[client] = scale(sincePick[client], s, stride[client]);
        stride[client] = s;
        carry[client] = 0;
        addToTotal(-worth[client]);                      // two compensated steps: their difference
        worth[client] = worthOf(s);                      // would round to a unit of the larger
        addToTotal(worth[client]);
        heap.update(client, base + lag);
    }

    /** The binary exponent of a positive value, subnormals included (Math.getExponent says -1023 for all of them). */
    private static int exponentOf(double v) {
        return v >= Double.MIN_NORMAL ? Math.getExponent(v) : Math.getExponent(v * 0x1p64) - 64;
    }

    private void countIn(double v) {
        int exponent = exponentOf(v);
        exponentCount[exponent + EXPONENT_BIAS]++;
        counted++;
        maxExponent = Math.max(maxExponent, exponent);
    }

    private void countOut(double v) {
        int exponent = exponentOf(v);
        exponentCount[exponent + EXPONENT_BIAS]--;
        counted--;
        if (counted == 0) {
            maxExponent = NO_EXPONENT;
        } else if (exponent == maxExponent) {
            while (exponentCount[maxExponent + EXPONENT_BIAS] == 0) {
                maxExponent--;                           // see "The largest value is tracked" above
            }
        }
    }

    /**
     * Rescales if the largest competing value has left the window; returns whether it did. Above
     * the window, and below it after an arrival ({@code eager}), at once. Below it after a departure
     * or a value that fell, only once {@link #LOW_PATIENCE} charges have passed with it still below
     * (see {@link #charge}): meanwhile the values left compete at the old scale, exactly down to
     * a scaled 2^-16 and clamped below that.
     */
    private boolean keepInWindow(boolean eager) {
        if (counted == 0) {
            chargesBelowWindow = -1;
            return false;                                // nothing to scale to: the shift stays
        }
        int scaled = maxExponent - shift;
        if (scaled >= WINDOW_LOW && scaled <= WINDOW_HIGH) {
            chargesBelowWindow = -1;
            return false;
        }
        if (scaled < WINDOW_LOW && !eager) {
            if (chargesBelowWindow < 0) {
                chargesBelowWindow = 0;                  // charge() counts from here
            }
            return false;
        }
        chargesBelowWindow = -1;
        rescale(maxExponent - WINDOW_CENTER);
        return true;
    }

    /**
     * Moves to {@code newShift}: every competing client gets the stride of its value there, with its
     * lag scaled by newStride / oldStride; carries go, the sum of worths is summed afresh.
     */
    private void rescale(int newShift) {
        shift = newShift;
        int n = heap.size();
        int[] clients = competingClients();              // update() below moves clients between slots
        long base = globalPass;
        if (byReference() && n > 0) {
            // Lags are scaled from the least pass, each by its client's newStride / oldStride; the
            // spread is narrowed first to SPREAD_TARGET over the largest of those ratios, so that no
            // scaled lag passes SPREAD_TARGET (< MAX_LAG, where scale() would clamp and tie).
            double growth = 1;
            for (int i = 0; i < n; i++) {
                growth = Math.max(growth, (double) strideAt(value[clients[i]]) / stride[clients[i]]);
            }
            PassSpread.bound(heap, (long) (SPREAD_TARGET / growth));
            base = heap.pass(heap.peek());
            clients = competingClients();
        }
        globalCarry = 0;                                 // a fraction of a pass unit of the old scale
        for (int i = 0; i < n; i++) {
            restrideAround(clients[i], base);            // changes client's pass only
        }
        if (byReference() && n > 0) {
            passCeiling = PassSpread.bound(heap, SPREAD_TARGET);
        }
        totalValue = 0;                                  // summed afresh: no residue of the old scale's deltas
        totalValueError = 0;
        for (int i = 0; i < n; i++) {
            addToTotal(worth[clients[i]]);
        }
    }

    /** The scaled value that {@code stride} stands for, rounding and clamping included. */
    private static double worthOf(long stride) {
        return (double) STRIDE1 / stride;
    }

    /** Neumaier summation: totalValueError collects the low-order bits each addition drops. */
    private void addToTotal(double delta) {
        if (heap.size() == 0 && delta < 0) {
            totalValue = 0; // the last client left: the sum is exactly empty
            totalValueError = 0;
        } else {
            double sum = totalValue + delta;
            if (Math.abs(totalValue) >= Math.abs(delta)) {
                totalValueError += (totalValue - sum) + delta;
            } else {
                totalValueError += (delta - sum) + totalValue;
            }
            totalValue = sum;
        }
        double total = totalValue + totalValueError;
        globalStride = total > 0 ? Math.min(STRIDE1 / total, MAX_STRIDE) : 0;
    }

    /** stride × used / quantum in pass units, carrying the remainder in {@code carries[index]}. */
    private static long advance(long stride, long used, long quantum, long[] carries, int index) {
        long q = MulDiv.floor(stride, used, carries[index], quantum);
        if (q > MAX_LAG) {
            carries[index] = 0;
            return MAX_LAG;
        }
        carries[index] = MulDiv.remainder(stride, used, carries[index], quantum, q);
        return q;
    }

    /** lag × newStride / oldStride, rounded toward zero and clamped to ±MAX_LAG. */
    private static long scale(long lag, long newStride, long oldStride) {
        long bounded = clampLag(lag);
        long magnitude = MulDiv.floor(Math.abs(bounded), newStride, 0, oldStride);
        magnitude = Math.min(magnitude, MAX_LAG);
        return bounded < 0 ? -magnitude : magnitude;
    }

    private static long clampLag(long lag) {
        return Math.clamp(lag, -MAX_LAG, MAX_LAG);
    }

    private void ensureCapacity(int client) {
        if (client < state.length) {
            return;
        }
        int length = Math.max(client + 1, state.length * 2);
        state = Arrays.copyOf(state, length);
        value = Arrays.copyOf(value, length);
        worth = Arrays.copyOf(worth, length);
        stride = Arrays.copyOf(stride, length);
        remain = Arrays.copyOf(remain, length);
        carry = Arrays.copyOf(carry, length);
        restricted = Arrays.copyOf(restricted, length);
        sincePick = Arrays.copyOf(sincePick, length);
        lastCharge = Arrays.copyOf(lastCharge, length);
        anchor = Arrays.copyOf(anchor, length);
        anchorGeneration = Arrays.copyOf(anchorGeneration, length);
        generation = Arrays.copyOf(generation, length);
    }

    private static void checkClient(int client) {
        if (client < 0) {
            throw new IllegalArgumentException("client id must not be negative: " + client);
        }
    }

    private static void checkValue(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("value must be finite and non-negative: " + value);
        }
    }

    private void checkKnown(int client) {
        checkClient(client);
        if (client >= state.length || state[client] == UNKNOWN) {
            throw new IllegalArgumentException("client " + client + " is not scheduled");
        }
    }
}
