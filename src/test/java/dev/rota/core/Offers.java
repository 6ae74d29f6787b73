package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What the engine-level tests assert of {@link Group#offer}. */
final class Offers {
    private Offers() {}

    static void assertAccepted(int offerResult) {
        assertEquals(Group.ACCEPTED, offerResult, "offer refused");
    }
}
