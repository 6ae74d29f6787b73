package dev.rota;

import dev.rota.share.Ticket;

/**
 * Tickets of one currency backing another, made by {@link Currency#fundFrom}. Thread-safe.
 */
public final class Funding {
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

    @Override
    public String toString() {
        return "funding of " + currency.name() + " by " + source.name();
    }
}
