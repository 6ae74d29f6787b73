package dev.rota.share;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * Stride scheduling: deterministic proportional share. Each competing client advances a virtual time,
 * its pass, by {@code STRIDE1 / value} per quantum of CPU time it is charged; the client with the
 * least pass runs next. For two clients, each one's CPU time stays, at every moment, within one
 * quantum of its value's share of their total.
 */
public final class StrideScheduler implements ShareScheduler {
    /*
     * Implementation overview [1]
     *
     *   stride(c)    = STRIDE1 / value(c)
     *   pick         = the competing client of least pass (PassHeap, O(1); updates O(log n))
     *   charge(c, u) = pass(c) += stride(c) × u / quantum;
     *                  globalPass += STRIDE1 / (sum of competing worths) × u / quantum, where c competes
     *   worth(c)     = STRIDE1 / stride(c): the value c's rounded, clamped stride stands for
     *   join         : pass = globalPass + remain, where remain = stride for a new client
     *   leave        : remain = pass − globalPass, kept until remove()
     *   new value    : remain' = remain × stride' / stride, so a client keeps its relative position
     *
     * Fixed point and overflow:
     *   STRIDE1 = 2^40. A value v gives stride round(2^40 / v), clamped to [1, MAX_STRIDE = 2^50].
     *   Rounding moves a stride by at most half a unit, a relative error of v / 2^41: below 1e-6 for
     *   v <= 2^20 (a million base tickets). Values below 2^-10 compete as 2^-10.
     *   Charges are exact: stride × used is formed in 128 bits (MulDiv) and the remainder of the
     *   division by the quantum is carried to the client's next charge, so partial quanta lose no
     *   time. A change of value or quantum discards less than one pass unit.
     *   Lags are bounded: every write keeps |pass − globalPass| and |remain| <= MAX_LAG = 2^61,
     *   saturating a single charge there (2^21 quanta for v >= 1, 2^11 for the smallest values).
     *   globalPass only moves forward. When charges go to picked clients, the least pass advances at
     *   least as fast as globalPass (its stride is at least the global stride, as its worth is part
     *   of the sum of worths; rounding costs at most one unit per charge), so no pass falls more than
     *   MAX_LAG behind. The sum is of worths, not of values: a clamped stride stands for a larger
     *   value than the client's, and a global stride taken from the values would then run ahead of
     *   every client's pass until the differences wrapped around.
     *   A client that no longer competes may still be charged for a slice that ends after it left: its
     *   remain advances, the global pass does not, since that time went to nobody who competes (and a
     *   move of both would count the slice against the client twice when it rejoins). Any two passes thus differ by at most 2^62 < 2^63, and comparing passes by signed
     *   difference (PassHeap) stays correct when the longs themselves wrap around, which globalPass
     *   does after about 2^23 quanta at a total value of 1.
     *   The total of competing values is a compensated (Neumaier) sum, so leaves and joins do not
     *   leave rounding residue in the global stride.
     *
     * References: [1] C. A. Waldspurger, W. E. Weihl, "Stride Scheduling: Deterministic
     * Proportional-Share Resource Management", MIT/LCS/TM-528, 1995.
     */

    /** Pass units per quantum for a client worth one base unit. */
    public static final long STRIDE1 = 1L << 40;
    static final long MAX_STRIDE = 1L << 50;
    static final long MAX_LAG = 1L << 61;

    private static final byte UNKNOWN = 0;
    private static final byte COMPETING = 1;
    private static final byte WAITING = 2;

    private final PassHeap heap = new PassHeap();
    private byte[] state = new byte[16];
    /** A competing client's worth in the total: STRIDE1 / stride. */
    private double[] worth = new double[16];
    private long[] stride = new long[16];
    /** remain of a waiting client: pass − globalPass when it left. */
    private long[] remain = new long[16];
    /** Remainder of stride × used not yet turned into pass, in units of 1/quantum. */
    private long[] carry = new long[16];

    private double totalValue;
    private double totalValueError;
    private long globalStride;
    private long globalPass;
    private long globalCarry;

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
                    long s = strideOf(newValue);
                    stride[client] = s;
                    carry[client] = 0;
                    compete(client, s);
                }
            }
            case WAITING -> {
                if (newValue > 0) {
                    long s = strideOf(newValue);
                    remain[client] = scale(remain[client], s, stride[client]);
                    stride[client] = s;
                    carry[client] = 0;
                    compete(client, remain[client]);
                }
            }
            default -> {
                if (newValue == 0) {
                    stopCompeting(client);
                } else {
                    long s = strideOf(newValue);
                    long lag = scale(heap.pass(client) - globalPass, s, stride[client]);
                    stride[client] = s;
                    carry[client] = 0;
                    addToTotal(worthOf(s) - worth[client]);
                    worth[client] = worthOf(s);
                    heap.update(client, globalPass + lag);
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
    }

    @Override
    public int pick() {
        return heap.size() == 0 ? NONE : heap.peek();
    }

    /** The eligible client of least pass: O(1) when it is the least overall, else O(k log k) for k passed over. */
    @Override
    public int pick(IntPredicate eligible) {
        int client = heap.firstMatching(eligible);
        return client < 0 ? NONE : client;
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
        if (state[client] == COMPETING) {
            long lag = Math.min(heap.pass(client) - globalPass + advance, MAX_LAG);
            heap.update(client, globalPass + lag);
        } else {
            remain[client] = Math.min(remain[client] + advance, MAX_LAG);
        }
        if (state[client] == COMPETING) {                // see "A client that no longer competes" above
            long q = MulDiv.floor(globalStride, usedNanos, globalCarry, quantumNanos);
            if (q > MAX_LAG) {
                q = MAX_LAG;
                globalCarry = 0;
            } else {
                globalCarry = MulDiv.remainder(globalStride, usedNanos, globalCarry, quantumNanos, q);
            }
            globalPass += q;
        }
    }

    /**
     * Credit is a pass behind the other clients'. A client confined to some CPUs falls ever further
     * behind for as long as it is confined (the others run, and are charged, where it may not); on
     * release it would take the whole pool until it had caught up. Forgiving moves it up to the
     * lowest pass among the other competing clients, so that it ranks with the client that is
     * furthest behind and the proportion holds again from the next quantum. A waiting client's
     * remain is raised the same way, measured from the global pass.
     */
    @Override
    public void forgiveCredit(int client) {
        if (client < 0 || client >= state.length || state[client] == UNKNOWN) {
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
            remain[client] = Math.max(remain[client], clampLag(floor - globalPass));
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

    /** pass − globalPass for a competing client, the kept remain for a waiting one. */
    public long remain(int client) {
        checkKnown(client);
        return state[client] == COMPETING ? heap.pass(client) - globalPass : remain[client];
    }

    public long stride(int client) {
        checkKnown(client);
        return stride[client];
    }

    /** Stride of a client worth {@code value} base units. */
    public static long strideOf(double value) {
        double exact = STRIDE1 / value;
        if (exact >= MAX_STRIDE) {
            return MAX_STRIDE;
        }
        return Math.max(1, Math.round(exact));
    }

    // ---- internals ----------------------------------------------------------------------------

    private void compete(int client, long lag) {
        state[client] = COMPETING;
        worth[client] = worthOf(stride[client]);
        addToTotal(worth[client]);
        heap.add(client, globalPass + clampLag(lag));
    }

    private void stopCompeting(int client) {
        remain[client] = clampLag(heap.pass(client) - globalPass);
        heap.remove(client);
        state[client] = WAITING;
        addToTotal(-worth[client]);
    }

    /** The value that {@code stride} stands for, rounding and clamping included. */
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
        globalStride = total > 0 ? strideOf(total) : 0;
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
        worth = Arrays.copyOf(worth, length);
        stride = Arrays.copyOf(stride, length);
        remain = Arrays.copyOf(remain, length);
        carry = Arrays.copyOf(carry, length);
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
