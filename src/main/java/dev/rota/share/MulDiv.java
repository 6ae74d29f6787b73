package dev.rota.share;

/**
 * {@code floor((a × b + add) / d)} for non-negative longs, exact through a 128-bit intermediate, so
 * that charges of any length keep pass arithmetic exact.
 */
final class MulDiv {
    /** One digit of the base-2^32 division. */
    private static final long BASE = 1L << 32;
    private static final long DIGIT = BASE - 1;

    private MulDiv() {}

    /**
     * Returns {@code floor((a × b + add) / d)}, or {@link Long#MAX_VALUE} where that does not fit.
     * Requires {@code a, b, add >= 0} and {@code d > 0}.
     */
    static long floor(long a, long b, long add, long d) {
        long lo = a * b;
        long hi = Math.unsignedMultiplyHigh(a, b);
        long sum = lo + add;
        if (Long.compareUnsigned(sum, lo) < 0) {
            hi++; // carry out of the low word
        }
        if (hi == 0 && sum >= 0) {
            return sum / d;
        }
        if (Long.compareUnsigned(hi, d) >= 0) {
            return Long.MAX_VALUE; // the quotient needs more than 64 bits
        }
        long quotient = divide(hi, sum, d);
        return quotient < 0 ? Long.MAX_VALUE : quotient;
    }

    /**
     * The remainder {@code (a × b + add) − quotient × d} for a quotient returned by {@link #floor}
     * that was not saturated. Computed modulo 2^64, which is exact because the true result is in [0, d).
     */
    static long remainder(long a, long b, long add, long d, long quotient) {
        return a * b + add - quotient * d;
    }

    /**
     * Unsigned {@code (hi · 2^64 + lo) / d} for {@code 0 <= hi < d < 2^63}: schoolbook division in base
     * 2^32 (Knuth's algorithm D, TAOCP vol. 2, 4.3.1), a dividend of four digits by a divisor of two,
     * giving two quotient digits. The divisor is first shifted left until its top bit is set, and the
     * dividend with it; then each digit, estimated from the dividend's top two digits and the
     * divisor's top one by a hardware division, is too large by at most two, and the test against
     * the divisor's second digit corrects it: two divisions and a few multiplications, against 64
     * dependent steps with a branch each for one quotient bit per step. Only products past 2^63 come
     * here, most of the lag rescales among them, as a group joins or leaves stride's scheduler.
     */
    private static long divide(long hi, long lo, long d) {
        int shift = Long.numberOfLeadingZeros(d);       // 1..63, as 0 < d < 2^63
        long v = d << shift;
        long v1 = v >>> 32;
        long v0 = v & DIGIT;
        long top = (hi << shift) | (lo >>> (64 - shift)); // hi < d, so nothing is shifted out
        long low = lo << shift;
        long q1 = quotientDigit(top, low >>> 32, v1, v0);
        long rest = (top << 32) + (low >>> 32) - q1 * v; // exact modulo 2^64: the true rest is below v
        long q0 = quotientDigit(rest, low & DIGIT, v1, v0);
        return (q1 << 32) | q0;
    }

    /**
     * The quotient digit of {@code (top · 2^32 + next) / (v1 · 2^32 + v0)}, for a divisor whose top bit
     * is set ({@code v1 >= 2^31}) and {@code top} below the divisor, so that the digit is below 2^32.
     * The estimate {@code top / v1} is at least the digit and at most two above it; while it is too
     * large, its product with the divisor's lower digit exceeds what the remainder can hold.
     */
    private static long quotientDigit(long top, long next, long v1, long v0) {
        long q = Long.divideUnsigned(top, v1);
        long r = top - q * v1;                           // below v1 < 2^32
        while (Long.compareUnsigned(q, BASE) >= 0 || Long.compareUnsigned(q * v0, (r << 32) | next) > 0) {
            q--;
            r += v1;
            if (Long.compareUnsigned(r, BASE) >= 0) {
                break;                                   // r · 2^32 no longer fits: q is right now
            }
        }
        return q;
    }
}
