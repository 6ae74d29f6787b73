package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class MulDivTest {

    @Test
    void shouldMatchBigIntegerArithmeticOrSaturate() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long a = operand(random);
            long b = operand(random);
            long add = operand(random);
            long d = 1 + operand(random) % (Long.MAX_VALUE - 1);
            assertMatchesBigInteger(a, b, add, d);
        }
    }

    @Test
    void shouldHandleEdges() {
        assertEquals(0, MulDiv.floor(0, Long.MAX_VALUE, 0, 1));
        assertEquals(Long.MAX_VALUE, MulDiv.floor(Long.MAX_VALUE, 1, 0, 1));
        assertEquals(Long.MAX_VALUE, MulDiv.floor(Long.MAX_VALUE, 2, 0, 1));
        assertEquals(Long.MAX_VALUE, MulDiv.floor(Long.MAX_VALUE, Long.MAX_VALUE, 0, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE - 1, MulDiv.floor(Long.MAX_VALUE, Long.MAX_VALUE - 1, 0, Long.MAX_VALUE));
        // (2^63 - 1) + (2^63 - 1) overflows a long; the carry into the high word must be kept.
        assertEquals(2, MulDiv.floor(Long.MAX_VALUE, 1, Long.MAX_VALUE, Long.MAX_VALUE - 1));
    }

    /**
     * Products past 2^63, the only ones divided in two steps, over divisors of every bit length:
     * powers of two, all ones, divisors whose low half is 0 or all ones, and random ones, where a
     * quotient digit's first estimate is too large by one or two; each with the largest multiplier
     * once, and with and without an addend.
     */
    @Test
    void shouldDivideWideProductsExactly() {
        SplittableRandom random = new SplittableRandom(11);
        for (int bits = 1; bits <= 63; bits++) {
            long top = 1L << (bits - 1);
            long ones = top | (top - 1);
            long[] divisors = {
                top,                                         // a low half of 0 past 32 bits
                ones,
                top | (random.nextLong() & (top - 1)),
                Math.max(top, ones & ~0xFFFF_FFFFL),         // high half all ones, low half 0
                top | (ones & 0xFFFF_FFFFL),                 // low half all ones
            };
            for (long d : divisors) {
                for (int i = 0; i < 200; i++) {
                    long a = 1 + random.nextLong(Long.MAX_VALUE - 1);
                    long b = i == 0 ? Long.MAX_VALUE : 1 + random.nextLong(Long.MAX_VALUE - 1);
                    long add = i % 2 == 0 ? 0 : random.nextLong(Long.MAX_VALUE);
                    assertMatchesBigInteger(a, b, add, d);
                }
            }
        }
    }

    /**
     * {@code floor} gives the exact quotient of {@code (a × b + add) / d} and {@code remainder} its
     * remainder, or {@code floor} saturates at {@link Long#MAX_VALUE} where the quotient does not fit.
     */
    private static void assertMatchesBigInteger(long a, long b, long add, long d) {
        BigInteger[] exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).add(BigInteger.valueOf(add))
                .divideAndRemainder(BigInteger.valueOf(d));
        long quotient = MulDiv.floor(a, b, add, d);
        Supplier<String> what = () -> a + " × " + b + " + " + add + " / " + d;
        if (exact[0].compareTo(BigInteger.valueOf(Long.MAX_VALUE)) >= 0) {
            assertEquals(Long.MAX_VALUE, quotient, what);
        } else {
            assertEquals(exact[0].longValueExact(), quotient, what);
            assertEquals(exact[1].longValueExact(), MulDiv.remainder(a, b, add, d, quotient), what);
        }
    }

    /** Mixes magnitudes: small, around 2^31, and anywhere up to 2^63 - 1. */
    private static long operand(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> random.nextLong(1 << 20);
            case 1 -> random.nextLong(1L << 40);
            default -> random.nextLong(Long.MAX_VALUE);
        };
    }
}
