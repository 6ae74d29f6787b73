package dev.rota.share;

import java.util.List;

/**
 * A client of a {@link CurrencyGraph} (a task group): funded by one ticket of one currency, active while
 * it has work.
 *
 * <p>Its ticket backs a private currency of its own, which issues a use ticket to the client (active
 * while the client is) and the client's loans: while one of its tasks waits on another client it
 * lends that client a ticket of its own currency ({@link CurrencyGraph#lend}), which backs the
 * borrower's own currency. So the client's value is split between its own use and its active
 * loans, in equal parts, and nothing is created by a loan; a loan passes on what the lender
 * holds, loans to it included, so tickets follow a chain of waits; and a loan follows every change
 * of the lender's tickets. This is the lottery paper's ticket transfer, with the paper's
 * per-thread currency made per group.
 *
 * <p>{@link #id()} is a small non-negative integer, unique among the graph's live clients and reused
 * after {@link CurrencyGraph#remove(ClientNode)}; schedulers index their arrays by it.
 */
public final class ClientNode extends ShareNode {
    /** Amount of the use ticket and of every loan in the client's own currency: equal parts. */
    static final long SHARE = 1;

    final int id;
    /** The client's ticket of its currency; it backs {@link #own} and is always {@code own.backing[0]}. */
    final Ticket ticket;
    /** The private currency: backed by {@link #ticket} and the loans held, issuing {@link #use} and the loans made. */
    final CurrencyNode own;
    /** The client's claim on its own currency, active exactly while the client is. */
    final Ticket use;
    boolean active;
    boolean removed;
    /** True while this client sits in the graph's list of clients whose value changed. */
    boolean pendingChange;

    ClientNode(CurrencyGraph graph, String name, int id, CurrencyNode currency, long amount) {
        super(graph, name);
        this.id = id;
        this.own = new CurrencyNode(graph, name, false, this);
        this.ticket = new Ticket(currency, own, amount);
        this.use = new Ticket(own, this, SHARE);
    }

    public int id() {
        return id;
    }

    public Ticket ticket() {
        return ticket;
    }

    public CurrencyNode currency() {
        return ticket.issuer;
    }

    public long tickets() {
        return ticket.amount;
    }

    /** The loans this client holds now (tickets of lenders' own currencies backing this client's). */
    public List<Ticket> loans() {
        return removed ? List.of() : List.copyOf(own.backing.subList(1, own.backing.size()));
    }

    public boolean isActive() {
        return active;
    }

    public boolean isRemoved() {
        return removed;
    }

    @Override
    public String toString() {
        return "client " + name;
    }
}
