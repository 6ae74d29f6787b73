package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MulDivTest {

    @Test
    void shouldMatchBigIntegerArithmeticOrSaturate() {
        SplittableRandom random = new SplittableRandom(7);
        BigInteger max = BigInteger.valueOf(Long.MAX_VALUE);
        for (int i = 0; i < 200_000; i++) {
            long a = operand(random);
            long b = operand(random);
            long add = operand(random);
            long d = 1 + operand(random) % (Long.MAX_VALUE - 1);
            BigInteger[] exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).add(BigInteger.valueOf(add))
                    .divideAndRemainder(BigInteger.valueOf(d));
            long quotient = MulDiv.floor(a, b, add, d);
            if (exact[0].compareTo(max) >= 0) {
                assertEquals(Long.MAX_VALUE, quotient, () -> a + " × " + b + " + " + add + " / " + d);
            } else {
                assertEquals(exact[0].longValueExact(), quotient, () -> a + " × " + b + " + " + add + " / " + d);
                assertEquals(exact[1].longValueExact(), MulDiv.remainder(a, b, add, d, quotient));
            }
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

    /** Mixes magnitudes: small, around 2^31, and anywhere up to 2^63 - 1. */
    private static long operand(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> random.nextLong(1 << 20);
            case 1 -> random.nextLong(1L << 40);
            default -> random.nextLong(Long.MAX_VALUE);
        };
    }
}
