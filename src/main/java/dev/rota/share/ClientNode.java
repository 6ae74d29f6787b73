package dev.rota.share;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A client of a {@link CurrencyGraph} (a task group): funded by one ticket of one currency, active while
 * it has work. While it waits on another client it may lend that client its tickets (a loan, see
 * {@link CurrencyGraph#lend}); the loans it holds count with its own ticket. Its {@link #value()} is the
 * sum of the values of its own ticket and the loans it holds while active, and 0 otherwise.
 *
 * <p>{@link #id()} is a small non-negative integer, unique among the graph's live clients and reused
 * after {@link CurrencyGraph#remove(ClientNode)}; schedulers index their arrays by it.
 */
public final class ClientNode extends ShareNode {
    final int id;
    final Ticket ticket;
    /** Tickets lent to this client by others, active exactly when this client is. */
    final List<Ticket> loans = new ArrayList<>();
    boolean active;
    boolean removed;
    /** True while this client sits in the graph's list of clients whose value changed. */
    boolean pendingChange;

    ClientNode(CurrencyGraph graph, String name, int id, CurrencyNode currency, long amount) {
        super(graph, name);
        this.id = id;
        this.ticket = new Ticket(currency, this, amount);
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

    /** The loans this client holds now. */
    public List<Ticket> loans() {
        return Collections.unmodifiableList(loans);
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
