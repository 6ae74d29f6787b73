package dev.rota.share;

/**
 * {@code floor((a × b + add) / d)} for non-negative longs, exact through a 128-bit intermediate, so
 * that charges of any length keep pass arithmetic exact.
 */
final class MulDiv {
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
     * Unsigned {@code (hi · 2^64 + lo) / d} for {@code 0 <= hi < d < 2^63}: binary long division, one
     * quotient bit per step. The partial remainder stays below {@code d < 2^63}, so shifting it left
     * never loses a bit. Only charges whose product exceeds 2^63 come here.
     */
    private static long divide(long hi, long lo, long d) {
        long rest = hi;
        long quotient = 0;
        for (int bit = 63; bit >= 0; bit--) {
            rest = (rest << 1) | ((lo >>> bit) & 1);
            quotient <<= 1;
            if (Long.compareUnsigned(rest, d) >= 0) {
                rest -= d;
                quotient |= 1;
            }
        }
        return quotient;
    }
}
