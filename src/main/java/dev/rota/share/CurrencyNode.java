package dev.rota.share;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A currency of a {@link CurrencyGraph}: funded by tickets of more primitive currencies, it issues its
 * own tickets to clients and to other currencies.
 *
 * <p>Invariants, kept by the graph: {@code activeAmount} is the sum of the amounts of its active issued
 * tickets and never exceeds {@code issuedAmount}, the sum of all its issued amounts; its backing tickets
 * are active exactly when {@code activeAmount > 0}; {@code value} is the sum of the values of its active
 * backing tickets (for the base currency, its active amount).
 *
 * <p>Every client has a private currency of its own ({@link #owner()} is that client): see
 * {@link ClientNode}. Only the graph funds it or issues in it, for the client's tickets and loans.
 */
public final class CurrencyNode extends ShareNode {
    final boolean base;
    /** The client whose private currency this is; null for a currency of the graph's users. */
    final ClientNode owner;
    /** Tickets in other currencies that fund this one. */
    final List<Ticket> backing = new ArrayList<>();
    /** Tickets denominated in this currency, held by clients or by currencies it funds. */
    final List<Ticket> issued = new ArrayList<>();
    long issuedAmount;
    long activeAmount;
    /** Set by {@link CurrencyGraph#removeCurrency}: it funds nothing and is funded by nothing. */
    boolean removed;

    CurrencyNode(CurrencyGraph graph, String name, boolean base) {
        this(graph, name, base, null);
    }

    CurrencyNode(CurrencyGraph graph, String name, boolean base, ClientNode owner) {
        super(graph, name);
        this.base = base;
        this.owner = owner;
    }

    /** The client whose private currency this is, or null. */
    public ClientNode owner() {
        return owner;
    }

    public boolean isBase() {
        return base;
    }

    /** True once {@link CurrencyGraph#removeCurrency removed}. */
    public boolean isRemoved() {
        return removed;
    }

    /** Sum of the amounts of this currency's tickets that are active now. */
    public long activeAmount() {
        return activeAmount;
    }

    /** Sum of the amounts of all tickets issued in this currency. */
    public long issuedAmount() {
        return issuedAmount;
    }

    /** The funding tickets backing this currency (empty for the base currency). */
    public List<Ticket> backing() {
        return Collections.unmodifiableList(backing);
    }

    /** The tickets issued in this currency. */
    public List<Ticket> issued() {
        return Collections.unmodifiableList(issued);
    }

    @Override
    public String toString() {
        return "currency " + name;
    }
}
