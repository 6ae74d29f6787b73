package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Currencies as README documents them, where a currency rather than the pool is the entry point:
 * two objects of one currency are equal, a currency funding itself is a cycle named as such,
 * tickets given through a currency or a funding are positive longs whose refusal names the value,
 * and after the pool's shutdown a currency makes neither groups nor currencies.
 */
class CurrencyTicketsAndRefusalsTest {

    private static String refusalOf(Runnable action) {
        return assertThrows(IllegalArgumentException.class, action::run).getMessage();
    }

    private static void assertNamesTheValue(long value, String message) {
        assertTrue(message.endsWith(": " + value), "the refusal of " + value + " tickets does not name them: " + message);
    }

    @Test
    void twoObjectsOfOneCurrencyAreEqualWithOneHashCode() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency reserve = pool.baseCurrency().newCurrency("reserve", 100);
            Currency tenants = pool.baseCurrency().newCurrency("tenants", 100);
            tenants.fundFrom(reserve, 10);
            Currency reserveAgain = tenants.fundings().get(1).source();
            assertNotSame(reserve, reserveAgain, "the funding's source is the same object: nothing to compare");
            assertEquals(reserve, reserveAgain, "two objects of currency reserve");
            assertEquals(reserve.hashCode(), reserveAgain.hashCode(), "hash codes of two objects of currency reserve");
            assertNotEquals(reserve, tenants, "two different currencies");
        }
    }

    @Test
    void aCurrencyOfANameRetiredBeforeIsAnotherCurrency() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency first = pool.baseCurrency().newCurrency("tenants", 100);
            first.retire();
            Currency second = pool.baseCurrency().newCurrency("tenants", 100);
            assertNotEquals(first, second, "a retired currency equals the new one that took its name");
        }
    }

    @Test
    void aCurrencyFundingItselfIsRefusedNamingTheCycle() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency self = pool.baseCurrency().newCurrency("self", 100);
            String message = refusalOf(() -> self.fundFrom(self, 1));
            assertTrue(message.contains("self -> self"), "the refusal does not name the cycle: " + message);
            assertEquals(1, self.fundings().size(), "a refused funding was made");
        }
    }

    @Test
    void ticketsGivenThroughACurrencyOrAFundingArePositiveAndARefusalNamesTheValue() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency base = pool.baseCurrency();
            Currency tenants = base.newCurrency("tenants", 100);
            Currency partners = base.newCurrency("partners", 100);
            Funding initial = tenants.fundings().get(0);

            assertNamesTheValue(0, refusalOf(() -> base.newCurrency("zero", 0)));
            assertNamesTheValue(-11, refusalOf(() -> base.newCurrency("negative", -11)));
            assertNamesTheValue(0, refusalOf(() -> tenants.newGroup("zero", 0)));
            assertNamesTheValue(-13, refusalOf(() -> tenants.newGroup("negative", -13)));
            assertNamesTheValue(0, refusalOf(() -> tenants.fundFrom(partners, 0)));
            assertNamesTheValue(-17, refusalOf(() -> tenants.fundFrom(partners, -17)));
            assertNamesTheValue(0, refusalOf(() -> initial.setTickets(0)));
            assertNamesTheValue(-19, refusalOf(() -> initial.setTickets(-19)));
            assertEquals(100, initial.tickets(), "a refused re-weighting changed the funding");
            assertEquals(List.of(initial), tenants.fundings(), "a refused funding was made");
        }
    }

    @Test
    void ticketTotalsThatWouldOverflowAreRefusedNamingTheValue() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency base = pool.baseCurrency();
            base.newCurrency("huge", Long.MAX_VALUE - 1_000);
            String currencyOverflow = refusalOf(() -> base.newCurrency("more", 12_345));
            assertTrue(currencyOverflow.contains("12345") && currencyOverflow.contains("overflow"), currencyOverflow);

            Currency tenants = base.newCurrency("tenants", 1);
            tenants.newGroup("big", Long.MAX_VALUE - 10);
            String groupOverflow = refusalOf(() -> tenants.newGroup("more", 23_456));
            assertTrue(groupOverflow.contains("23456") && groupOverflow.contains("overflow"), groupOverflow);
        }
    }

    @Test
    void aCurrencyMakesNoGroupOrCurrencyAfterThePoolsShutdown() {
        try (RotaPool pool = RotaPool.builder().workers(1).build()) {
            Currency tenants = pool.baseCurrency().newCurrency("tenants", 100);
            pool.shutdown();
            String group = assertThrows(RejectedExecutionException.class, () -> tenants.newGroup("late-group", 1))
                    .getMessage();
            assertTrue(group.contains("late-group") && group.contains("shut down"), group);
            String currency = assertThrows(RejectedExecutionException.class, () -> tenants.newCurrency("late-currency", 1))
                    .getMessage();
            assertTrue(currency.contains("late-currency") && currency.contains("shut down"), currency);
            assertEquals(0, tenants.issuedTickets(), "a refused group or currency holds tickets of tenants");
        }
    }
}
