package dev.rota;

import dev.rota.share.Ticket;

/**
 * Tickets of one currency backing another: made by {@link Currency#fundFrom}, or listed by
 * {@link Currency#fundings()} (which includes the tickets a currency was made with). Thread-safe.
 * Closing it withdraws it, so a funding for a stretch of time reads:
 *
 * {@snippet :
 * try (Funding boost = tenants.fundFrom(reserve, 50)) {
 *     runQuarterEndReports();
 * }
 * }
 */
public final class Funding implements AutoCloseable {
    private final RotaPool pool;
    private final Currency currency;
    private final Currency source;
    private final Ticket ticket;

    Funding(RotaPool pool, Currency currency, Currency source, Ticket ticket) {
        this.pool = pool;
        this.currency = currency;
        this.source = source;
        this.ticket = ticket;
    }

    /** The currency this funding backs. */
    public Currency currency() {
        return currency;
    }

    /** The currency whose tickets back it. */
    public Currency source() {
        return source;
    }

    /** The tickets of {@link #source()} backing {@link #currency()}; 0 once withdrawn. */
    public long tickets() {
        return pool.dispatcher().read(() -> ticket.isDetached() ? 0L : ticket.amount());
    }

    /**
     * Inflates or deflates this funding.
     *
     * @throws IllegalArgumentException if {@code tickets} is not positive or overflows, or the funding was withdrawn
     */
    public void setTickets(long tickets) {
        pool.dispatcher().withLedger(ledger -> {
            ledger.setTickets(ticket, tickets);
            return null;
        });
    }

    /**
     * Withdraws this funding; a currency left without backing is worth nothing. Its groups still
     * run, so that no accepted task waits for ever, but at a tiny share: under stride scheduling a
     * funded group worth one base ticket runs at least 2^16 quanta (about a minute at 1 ms) for each
     * quantum of such a group, and the pool's default group (100 base tickets) about 2^22.
     *
     * @throws IllegalArgumentException if it was withdrawn already
     */
    public void withdraw() {
        pool.dispatcher().withLedger(ledger -> {
            ledger.unfund(ticket);
            return null;
        });
    }

    /** Withdraws this funding unless it was withdrawn already; closing twice is harmless. */
    @Override
    public void close() {
        pool.dispatcher().withLedger(ledger -> {
            if (!ticket.isDetached()) {
                ledger.unfund(ticket);
            }
            return null;
        });
    }

    /** True when both stand for the same tickets. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Funding funding && funding.ticket == ticket;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(ticket);
    }

    @Override
    public String toString() {
        return "funding of " + currency.name() + " by " + source.name();
    }
}
