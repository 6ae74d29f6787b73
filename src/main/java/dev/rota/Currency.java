package dev.rota;

import dev.rota.share.CurrencyNode;
import java.util.List;
import java.util.Objects;

/**
 * A ticket currency of one {@link RotaPool}, after the lottery-scheduling paper: the pool's base
 * currency, or one funded by tickets of other currencies (never in a cycle). A currency issues
 * tickets to {@link TaskGroup}s and to other currencies; what they are worth follows its own value,
 * so inflating a currency (more groups, more tickets) dilutes only the groups it funds: load
 * insulation between, say, tenants.
 *
 * {@snippet :
 * Currency base = pool.baseCurrency();
 * Currency tenants = base.newCurrency("tenants", 100);   // funded by 100 base tickets
 * TaskGroup t1 = tenants.newGroup("t1", 10);              // t1 and t2 split the tenants' 100
 * TaskGroup t2 = tenants.newGroup("t2", 30);              //   as 25 : 75 while both have work
 * tenants.fundFrom(partners, 50);                         // more backing, from another currency
 * }
 *
 * <p>Values in base units are kept current incrementally as groups come and go (a group with no
 * queued or running work is inactive and its tickets stop counting; a currency left with no active
 * tickets stops drawing on its own backing until it has some again). Every operation here is
 * thread-safe.
 *
 * <p>Its backing, the tickets it was made with included, is listed by {@link #fundings()}, each one
 * to re-weight or withdraw; once its groups have terminated and the currencies it funds no longer
 * draw on it (retired, or their funding from it withdrawn), {@link #retire()} withdraws that
 * backing and frees its name. Two {@code Currency} objects are equal
 * when they stand for the same currency.
 */
public final class Currency {
    private final RotaPool pool;
    final CurrencyNode node;

    Currency(RotaPool pool, CurrencyNode node) {
        this.pool = pool;
        this.node = node;
    }

    public String name() {
        return node.name();
    }

    public boolean isBase() {
        return node.isBase();
    }

    public RotaPool pool() {
        return pool;
    }

    /**
     * A new task group funded by {@code tickets} tickets of this currency.
     *
     * @throws IllegalArgumentException if {@code tickets} is not positive or would overflow this
     *                                  currency's total, or the name is blank or used by a live group
     *                                  or a currency of this pool (a terminated group's name is free again),
     *                                  or this currency was retired
     * @throws java.util.concurrent.RejectedExecutionException if the pool is shut down
     */
    public TaskGroup newGroup(String name, long tickets) {
        return pool.newGroup(name, this, tickets);
    }

    /**
     * A new currency funded by {@code tickets} tickets of this one.
     *
     * @throws IllegalArgumentException if {@code tickets} is not positive or would overflow this
     *                                  currency's total, or the name is blank or already used in this pool,
     *                                  or this currency was retired
     * @throws java.util.concurrent.RejectedExecutionException if the pool is shut down
     */
    public Currency newCurrency(String name, long tickets) {
        Objects.requireNonNull(name, "name");
        pool.refuseIfShutdown("currency", name);
        CurrencyNode created = pool.dispatcher().withLedger(ledger -> ledger.newCurrency(name, node, tickets));
        return new Currency(pool, created);
    }

    /**
     * Backs this currency with {@code tickets} more tickets of {@code source}.
     *
     * @return the funding, to change or withdraw later
     * @throws IllegalArgumentException if this is the base currency, {@code source} belongs to another
     *                                  pool, {@code tickets} is not positive or would overflow
     *                                  {@code source}'s total, the funding would close a cycle (the
     *                                  message names the cycle), or either currency was retired
     * @throws java.util.concurrent.RejectedExecutionException if the pool is shut down, as for
     *                                  {@link #newCurrency}: the funding could back no task any more
     */
    public Funding fundFrom(Currency source, long tickets) {
        Objects.requireNonNull(source, "source");
        if (source.pool != pool) {
            throw new IllegalArgumentException(source + " belongs to another pool than " + this);
        }
        pool.refuseIfShutdown("funding of currency", name());
        return new Funding(pool, this, source,
                pool.dispatcher().withLedger(ledger -> ledger.fundFrom(node, source.node, tickets)));
    }

    /**
     * The fundings backing this currency now, oldest first: the tickets it was made with by
     * {@link #newCurrency}, then those added by {@link #fundFrom}, less those withdrawn. Each can be
     * re-weighted ({@link Funding#setTickets}) or withdrawn. Empty for the base currency and once
     * retired.
     */
    public List<Funding> fundings() {
        return pool.dispatcher().read(() -> node.backing().stream()
                .map(ticket -> new Funding(pool, this, pool.currencyOf(ticket.currency()), ticket))
                .toList());
    }

    /**
     * Retires this currency: withdraws its backing and frees its name. It must fund nothing any
     * more: every group it funds has terminated (a terminated group's tickets no longer count) and
     * every currency it funded was retired or had that funding withdrawn. It can fund nothing
     * afterwards: {@link #newGroup}, {@link #newCurrency} and {@link #fundFrom} on it or from it throw
     * {@code IllegalArgumentException}. Allowed after the pool's shutdown, as it only releases.
     *
     * @throws IllegalArgumentException if this is the base currency or was retired already
     * @throws IllegalStateException    if a live group or a currency still holds its tickets; the
     *                                  message names them
     */
    public void retire() {
        pool.dispatcher().withLedger(ledger -> {
            ledger.removeCurrency(node);
            return null;
        });
    }

    /** True once {@link #retire() retired}. */
    public boolean isRetired() {
        return pool.dispatcher().read(node::isRemoved);
    }

    /** What this currency is worth now, in base tickets: the sum of its active backing tickets' values. */
    public double value() {
        return pool.dispatcher().read(node::value);
    }

    /** Tickets of this currency held by active groups and currencies now. */
    public long activeTickets() {
        return pool.dispatcher().read(node::activeAmount);
    }

    /**
     * Tickets of this currency issued in all, to live groups and to currencies; a terminated group's,
     * whether it ended by itself or with its pool, no longer count.
     */
    public long issuedTickets() {
        return pool.dispatcher().read(node::issuedAmount);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Currency currency && currency.node == node;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(node);
    }

    @Override
    public String toString() {
        return "currency " + name();
    }
}
