package dev.rota.share;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Ticket currencies and the clients they fund, with every client's value in base units kept current.
 *
 * <p>A base currency roots the graph; every other currency is funded by tickets of one or more
 * currencies (never in a cycle) and issues tickets to clients and to other currencies. A client is
 * active while it has work. Values follow the lottery-scheduling paper [1]: a base ticket is worth its
 * face amount, a currency is worth the sum of its active backing tickets, and a ticket is worth its
 * currency's value times its share of the currency's active amount. Inflating a currency therefore
 * dilutes only the clients of that currency.
 *
 * <p>Single-threaded: the caller serializes all calls. After each change, the clients whose value
 * changed wait in a change list; {@link #drainChanged(ShareScheduler)} applies them to a scheduler.
 */
public final class CurrencyGraph {
    /*
     * Implementation overview
     *
     * Edges run from a ticket's issuer to its holder: s -> h for a funding ticket of currency s
     * backing currency h. Every client k has a private currency k$ (ClientNode): c -> k$ for k's
     * ticket of its currency c, k$ -> k for its use ticket, and j$ -> k$ for a loan from client j to
     * client k, so loans are fundings between private currencies and obey the same rules (no cycle:
     * a loan that would close one is refused). Every operation runs in two phases:
     *
     *  1. Activity, upward (changeActive). A ticket switching on or off, or changing amount while
     *     active, changes its issuer's activeAmount. When that crosses zero, the issuer's backing
     *     tickets switch on or off, changing their issuers' active amounts, and so on towards the
     *     base. Within one operation all deltas have one sign (activating, funding, lending and
     *     raising add; deactivating, unfunding, repaying and removing subtract; a changed amount stays
     *     positive), so each currency crosses zero at most once and the walk costs O(edges reached).
     *     A client's activity is its use ticket's: activating k adds SHARE to k$'s active amount.
     *  2. Values, downward (refreshValues). Values can change only for the descendants of each
     *     non-base currency whose active amount changed (its exchange rate changed) and for the
     *     holder of a ticket whose amount or activity changed. Those nodes, and nothing else, are
     *     recomputed from their backing tickets in topological order (reverse DFS postorder), so each
     *     reads its sources' final values. The base currency's rate never changes, since a base
     *     ticket is worth its face amount: that is what insulates currencies funded from the base
     *     from each other's load.
     *
     * Because recomputation always re-sums a node's backing tickets, cached values equal a
     * from-scratch evaluation up to the order of floating-point additions.
     *
     * References: [1] C. A. Waldspurger, W. E. Weihl, "Lottery Scheduling: Flexible
     * Proportional-Share Resource Management", OSDI 1994, sections 3.3, 4.4.
     */

    private final CurrencyNode base;
    private final Map<String, ShareNode> names = new HashMap<>();
    private ClientNode[] clientsById = new ClientNode[8];
    private int[] freeIds = new int[8];
    private int freeIdCount;
    private int nextId;

    /** Clients whose value changed since the last drain, oldest first. */
    private ArrayList<ClientNode> changed = new ArrayList<>();
    /** An empty list that the next drain swaps in for {@link #changed}; null while a drain uses it. */
    private ArrayList<ClientNode> spareChanged = new ArrayList<>();
    /** Roots of the next value refresh: nodes whose own inputs changed. */
    private final ArrayList<ShareNode> stale = new ArrayList<>();
    /**
     * Phase 1's work: active-amount deltas not yet applied, a stack in two parallel arrays so that an
     * activation allocates nothing. The order does not matter: within one operation every delta has
     * the same sign, so each currency's amount moves one way and crosses zero at most once, whatever
     * the order of the additions.
     */
    private CurrencyNode[] deltaCurrencies = new CurrencyNode[16];
    private long[] deltaAmounts = new long[16];
    private int deltaCount;
    private final ArrayList<ShareNode> postorder = new ArrayList<>();
    private final ArrayList<ShareNode> dfsNodes = new ArrayList<>();
    private int[] dfsNextChild = new int[16];
    /** Traversal stamp; a long, since an int could wrap within hours of busy activation. */
    private long epoch;
    /** Nodes recomputed so far; lets tests check that a change touches only its sub-DAG. */
    long recomputations;

    public CurrencyGraph() {
        this("base");
    }

    public CurrencyGraph(String baseName) {
        checkNameFree(baseName);
        base = new CurrencyNode(this, baseName, true);
        names.put(baseName, base);
    }

    public CurrencyNode base() {
        return base;
    }

    /** A new currency funded by {@code amount} tickets of {@code parent}. */
    public CurrencyNode newCurrency(String name, CurrencyNode parent, long amount) {
        checkNameFree(name);
        shared(parent, "parent");
        checkIssuable(parent, amount);
        CurrencyNode currency = new CurrencyNode(this, name, false);
        attachFunding(new Ticket(parent, currency, amount));
        names.put(name, currency);
        return currency;
    }

    /**
     * Backs {@code currency} with {@code amount} more tickets of {@code source}.
     *
     * @return the funding ticket, for {@link #setTickets(Ticket, long)} and {@link #unfund(Ticket)}
     * @throws IllegalArgumentException if {@code currency} is the base, or the funding would close a cycle
     */
    public Ticket fundFrom(CurrencyNode currency, CurrencyNode source, long amount) {
        shared(currency, "currency");
        shared(source, "source");
        if (currency.base) {
            throw new IllegalArgumentException("the base currency " + currency.name + " cannot be funded");
        }
        rejectCycle(currency, source);
        checkIssuable(source, amount);
        return addFunding(source, currency, amount);
    }

    /** Attaches a funding ticket already checked; active at once if its holder is. */
    private Ticket addFunding(CurrencyNode source, CurrencyNode currency, long amount) {
        Ticket funding = new Ticket(source, currency, amount);
        attachFunding(funding);
        if (currency.activeAmount > 0) {
            funding.active = true;
            stale.add(currency);
            changeActive(source, amount);
            refreshValues();
        }
        return funding;
    }

    /** Withdraws a funding ticket; a currency left without backing is worth nothing. */
    public void unfund(Ticket funding) {
        withdraw(liveFunding(funding), funding);
    }

    /** Detaches a funding ticket (a loan included) from its issuer and its holder. */
    private void withdraw(CurrencyNode holder, Ticket funding) {
        detach(funding);
        holder.backing.remove(funding.holderIndex);
        reindexBacking(holder, funding.holderIndex);
        funding.holderIndex = -1;
        if (funding.active) {
            funding.active = false;
            stale.add(holder);
            changeActive(funding.issuer, -funding.amount);
            refreshValues();
        }
    }

    /**
     * Removes a currency that issues no tickets any more (no client and no currency draws on it):
     * its backing is withdrawn and its name is free again. It can fund nothing after this.
     *
     * @throws IllegalArgumentException if it is the base currency, a client's own currency, or was
     *                                  removed already
     * @throws IllegalStateException    if it still issues tickets; the message names their holders
     */
    public void removeCurrency(CurrencyNode currency) {
        shared(currency, "currency");
        if (currency.base) {
            throw new IllegalArgumentException("the base currency " + currency.name + " cannot be removed");
        }
        if (!currency.issued.isEmpty()) {
            throw new IllegalStateException(currency + " still funds " + currency.issued.stream()
                    .map(ticket -> ticket.holder.name).collect(Collectors.joining(", ")));
        }
        while (!currency.backing.isEmpty()) {
            withdraw(currency, currency.backing.getLast());  // all inactive: nothing is active in it
        }
        names.remove(currency.name);
        currency.removed = true;
    }

    /** A new, inactive client funded by {@code amount} tickets of {@code currency}. */
    public ClientNode newClient(String name, CurrencyNode currency, long amount) {
        checkNameFree(name);
        shared(currency, "currency");
        checkIssuable(currency, amount);
        ClientNode client = new ClientNode(this, name, allocateId(), currency, amount);
        attachFunding(client.ticket);                    // backing[0] of its own currency
        attachIssued(client.use);
        names.put(name, client);
        clientsById[client.id] = client;
        return client;
    }

    /** Inflates or deflates a client's ticket. */
    public void setTickets(ClientNode client, long amount) {
        live(client);
        changeAmount(client.ticket, client.own, amount);
    }

    /** Inflates or deflates a funding ticket. */
    public void setTickets(Ticket funding, long amount) {
        changeAmount(funding, liveFunding(funding), amount);
    }

    /** Marks a client as having work. Returns false when it was already active. */
    public boolean activate(ClientNode client) {
        live(client);
        if (client.active) {
            return false;
        }
        client.active = true;
        client.use.active = true;
        stale.add(client);
        changeActive(client.own, ClientNode.SHARE);
        refreshValues();
        return true;
    }

    /** Marks a client as idle: its tickets stop counting. Returns false when it was already inactive. */
    public boolean deactivate(ClientNode client) {
        live(client);
        if (!client.active) {
            return false;
        }
        client.active = false;
        client.use.active = false;
        stale.add(client);
        changeActive(client.own, -ClientNode.SHARE);
        refreshValues();
        return true;
    }

    /**
     * Lends {@code lender}'s tickets to {@code borrower}, as a client blocked on a server does in the
     * lottery paper [1] (ticket transfer): a ticket of the lender's own currency, backing the
     * borrower's, active while the borrower's currency is (the borrower is active, or lends on in
     * turn). The lender's value is then split in equal parts between its own use, while it is
     * active, and its active loans (see {@link ClientNode}).
     *
     * @return the loan, for {@link #repay(Ticket)}
     * @throws IllegalArgumentException if the two are the same client, either was removed, or the
     *         borrower already lends to the lender, directly or along a chain of loans (a cycle)
     */
    public Ticket lend(ClientNode lender, ClientNode borrower) {
        live(lender);
        live(borrower);
        if (lender == borrower) {
            throw new IllegalArgumentException(lender + " cannot lend to itself");
        }
        List<CurrencyNode> path = fundingPath(borrower.own, lender.own);
        if (path != null) {
            throw new IllegalArgumentException("a loan from " + lender.name + " to " + borrower.name
                    + " would make a cycle of loans: " + path.stream().map(ShareNode::name)
                    .collect(Collectors.joining(" -> ")) + " -> " + borrower.name);
        }
        checkIssuable(lender.own, ClientNode.SHARE);
        return addFunding(lender.own, borrower.own, ClientNode.SHARE);
    }

    /** Ends a loan made by {@link #lend}; a no-op for one already repaid or whose borrower was removed. */
    public void repay(Ticket loan) {
        Objects.requireNonNull(loan, "loan");
        if (!(loan.holder instanceof CurrencyNode held) || held.owner == null || loan.issuer.owner == null) {
            throw new IllegalArgumentException("not a loan: " + loan);
        }
        owned(held, "loan");
        if (loan.isDetached()) {
            return;
        }
        withdraw(held, loan);
    }

    /**
     * Removes a client for good. Its name and id may be reused at once: the change list hands the
     * removal over before any change of a later client with the same id.
     */
    public void remove(ClientNode client) {
        deactivate(client);
        CurrencyNode own = client.own;
        while (own.backing.size() > 1) {
            withdraw(own, own.backing.getLast());        // the loans it holds
        }
        for (int i = own.issued.size() - 1; i >= 0; i--) {
            Ticket issued = own.issued.get(i);           // a removal moves the last, already seen, to i
            if (issued != client.use) {
                withdraw((CurrencyNode) issued.holder, issued); // the loans it made
            }
        }
        detach(client.ticket);                           // inactive now: its own currency has no active ticket
        own.backing.clear();
        client.ticket.holderIndex = -1;
        detach(client.use);
        names.remove(client.name);
        clientsById[client.id] = null;
        client.removed = true;
        noteChanged(client);
        if (freeIdCount == freeIds.length) {
            freeIds = Arrays.copyOf(freeIds, freeIds.length * 2);
        }
        freeIds[freeIdCount++] = client.id;
    }

    /** The current value of a client or currency in base units. */
    public double value(ShareNode node) {
        return owned(node, "node").value;
    }

    /** The live clients, in id order. */
    public List<ClientNode> clients() {
        List<ClientNode> list = new ArrayList<>();
        for (int id = 0; id < nextId; id++) {
            if (clientsById[id] != null) {
                list.add(clientsById[id]);
            }
        }
        return list;
    }

    /**
     * Hands every client whose value changed since the last drain (or that was removed) to
     * {@code sink}, oldest change first, and empties the change list. A removed client comes before
     * any later client that reuses its id.
     *
     * @return the number of clients handed over
     */
    public int drainChanged(Consumer<? super ClientNode> sink) {
        if (changed.isEmpty()) {
            return 0;
        }
        // Swapped, not copied, so that a drain allocates nothing; changes that the sink causes go to
        // the new list, for the next drain (a drain from inside the sink gets a list of its own).
        ArrayList<ClientNode> batch = changed;
        changed = spareChanged != null ? spareChanged : new ArrayList<>();
        spareChanged = null;
        int n = batch.size();
        for (int i = 0; i < n; i++) {
            batch.get(i).pendingChange = false;
        }
        try {
            for (int i = 0; i < n; i++) {
                sink.accept(batch.get(i));
            }
        } finally {
            batch.clear();
            spareChanged = batch;
        }
        return n;
    }

    /** Applies the pending changes to a scheduler: new values, departures (value 0) and removals. */
    public int drainChanged(ShareScheduler scheduler) {
        return drainChanged(client -> {
            if (client.removed) {
                scheduler.remove(client.id);
            } else {
                scheduler.setValue(client.id, client.value);
            }
        });
    }

    // ---- phase 1: activity -------------------------------------------------------------------

    /** Adds {@code delta} to the active amount of {@code currency}, switching backing tickets at zero. */
    private void changeActive(CurrencyNode currency, long delta) {
        pushDelta(currency, delta);
        while (deltaCount > 0) {
            deltaCount--;
            CurrencyNode c = deltaCurrencies[deltaCount];
            long before = c.activeAmount;
            long after = before + deltaAmounts[deltaCount]; // never overflows: 0 <= after <= issuedAmount
            deltaCurrencies[deltaCount] = null;
            c.activeAmount = after;
            if (c.base) {
                c.value = after;
                continue;
            }
            stale.add(c);
            boolean switchOn = before == 0 && after > 0;
            boolean switchOff = before > 0 && after == 0;
            if (switchOn || switchOff) {
                for (int i = 0, n = c.backing.size(); i < n; i++) { // indexed: an iterator would be an allocation per step
                    Ticket backing = c.backing.get(i);
                    backing.active = switchOn;
                    pushDelta(backing.issuer, switchOn ? backing.amount : -backing.amount);
                }
            }
        }
    }

    private void pushDelta(CurrencyNode currency, long delta) {
        if (deltaCount == deltaCurrencies.length) {
            // Both copies first: an OutOfMemoryError between two assignments would leave the arrays out of step.
            CurrencyNode[] currencies = Arrays.copyOf(deltaCurrencies, deltaCount * 2);
            long[] amounts = Arrays.copyOf(deltaAmounts, deltaCount * 2);
            deltaCurrencies = currencies;
            deltaAmounts = amounts;
        }
        deltaCurrencies[deltaCount] = currency;
        deltaAmounts[deltaCount] = delta;
        deltaCount++;
    }

    private void changeAmount(Ticket ticket, ShareNode holder, long amount) {
        checkPositive(amount);
        long delta = amount - ticket.amount;
        if (delta > 0 && overflows(ticket.issuer, delta)) {
            throw new IllegalArgumentException("setting " + holder.name + "'s tickets of " + ticket.issuer.name
                    + " to " + amount + " would overflow their total of " + ticket.issuer.issuedAmount);
        }
        ticket.amount = amount;
        ticket.issuer.issuedAmount += delta;
        if (ticket.active && delta != 0) {
            stale.add(holder);
            changeActive(ticket.issuer, delta);
            refreshValues();
        }
    }

    // ---- phase 2: values ---------------------------------------------------------------------

    /** Recomputes the stale nodes and all their descendants, sources before holders. */
    private void refreshValues() {
        epoch++;
        for (int i = 0, n = stale.size(); i < n; i++) {
            collectPostorder(stale.get(i));
        }
        stale.clear();
        for (int i = postorder.size() - 1; i >= 0; i--) {
            recompute(postorder.get(i));
        }
        postorder.clear();
    }

    /** Iterative DFS from {@code root} along issued tickets, appending nodes to {@code postorder}. */
    private void collectPostorder(ShareNode root) {
        if (root.visitEpoch == epoch) {
            return;
        }
        root.visitEpoch = epoch;
        pushDfs(root);
        while (!dfsNodes.isEmpty()) {
            int top = dfsNodes.size() - 1;
            ShareNode node = dfsNodes.get(top);
            if (node instanceof CurrencyNode currency && dfsNextChild[top] < currency.issued.size()) {
                ShareNode child = currency.issued.get(dfsNextChild[top]++).holder;
                if (child.visitEpoch != epoch) {
                    child.visitEpoch = epoch;
                    pushDfs(child);
                }
            } else {
                dfsNodes.remove(top);
                postorder.add(node);
            }
        }
    }

    private void pushDfs(ShareNode node) {
        if (dfsNodes.size() == dfsNextChild.length) {
            dfsNextChild = Arrays.copyOf(dfsNextChild, dfsNextChild.length * 2);
        }
        dfsNextChild[dfsNodes.size()] = 0;
        dfsNodes.add(node);
    }

    private void recompute(ShareNode node) {
        recomputations++;
        switch (node) {
            case CurrencyNode currency -> {
                if (currency.base) {
                    return; // its value is its active amount, set in phase 1
                }
                double sum = 0;
                for (int i = 0, n = currency.backing.size(); i < n; i++) {
                    sum += currency.backing.get(i).value();
                }
                currency.value = sum;
            }
            case ClientNode client -> {
                double now = client.active ? client.use.value() : 0;
                if (now != client.value) {
                    client.value = now;
                    noteChanged(client);
                }
            }
        }
    }

    private void noteChanged(ClientNode client) {
        if (!client.pendingChange) {
            client.pendingChange = true;
            changed.add(client);
        }
    }

    // ---- structure ---------------------------------------------------------------------------

    private void attachFunding(Ticket funding) {
        attachIssued(funding);
        CurrencyNode holder = (CurrencyNode) funding.holder;
        funding.holderIndex = holder.backing.size();
        holder.backing.add(funding);
    }

    private void attachIssued(Ticket ticket) {
        CurrencyNode issuer = ticket.issuer;
        ticket.issuedIndex = issuer.issued.size();
        issuer.issued.add(ticket);
        issuer.issuedAmount += ticket.amount;
    }

    /** Removes a ticket from its issuer's list by moving the last ticket into its place. */
    private static void detach(Ticket ticket) {
        CurrencyNode issuer = ticket.issuer;
        Ticket last = issuer.issued.removeLast();
        if (last != ticket) {
            issuer.issued.set(ticket.issuedIndex, last);
            last.issuedIndex = ticket.issuedIndex;
        }
        issuer.issuedAmount -= ticket.amount;
        ticket.issuedIndex = -1;
    }

    private static void reindexBacking(CurrencyNode holder, int from) {
        for (int i = from; i < holder.backing.size(); i++) {
            holder.backing.get(i).holderIndex = i;
        }
    }

    private int allocateId() {
        if (freeIdCount > 0) {
            return freeIds[--freeIdCount];
        }
        if (nextId == clientsById.length) {
            clientsById = Arrays.copyOf(clientsById, nextId * 2);
        }
        return nextId++;
    }

    /** Throws if {@code source} is reachable from {@code currency}: the new edge would close a cycle. */
    private void rejectCycle(CurrencyNode currency, CurrencyNode source) {
        List<CurrencyNode> path = fundingPath(currency, source);
        if (path != null) {
            String cycle = path.stream().map(ShareNode::name).collect(Collectors.joining(" -> "))
                    + " -> " + currency.name;
            throw new IllegalArgumentException(
                    "funding " + currency.name + " from " + source.name + " would make a cycle: " + cycle);
        }
    }

    /** The shortest chain of currencies from {@code from} to {@code to} along funding, or null. */
    private List<CurrencyNode> fundingPath(CurrencyNode from, CurrencyNode to) {
        Map<CurrencyNode, CurrencyNode> cameFrom = new HashMap<>();
        ArrayDeque<CurrencyNode> frontier = new ArrayDeque<>();
        epoch++;
        from.visitEpoch = epoch;
        frontier.add(from);
        while (!frontier.isEmpty()) {
            CurrencyNode node = frontier.poll();
            if (node == to) {
                ArrayList<CurrencyNode> path = new ArrayList<>();
                for (CurrencyNode step = to; step != null; step = cameFrom.get(step)) {
                    path.add(step);
                }
                return path.reversed();
            }
            for (Ticket ticket : node.issued) {
                if (ticket.holder instanceof CurrencyNode next && next.visitEpoch != epoch) {
                    next.visitEpoch = epoch;
                    cameFrom.put(next, node);
                    frontier.add(next);
                }
            }
        }
        return null;
    }

    // ---- validation --------------------------------------------------------------------------

    private void checkNameFree(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        if (names.containsKey(name)) {
            throw new IllegalArgumentException("name already in use: " + name);
        }
    }

    private static void checkPositive(long amount) {
        if (amount <= 0) {
            throw new IllegalArgumentException("tickets must be positive: " + amount);
        }
    }

    /** True when issuing {@code more} (positive) tickets would take the currency's total past Long.MAX_VALUE. */
    private static boolean overflows(CurrencyNode currency, long more) {
        return currency.issuedAmount > Long.MAX_VALUE - more;
    }

    private static void checkIssuable(CurrencyNode currency, long amount) {
        checkPositive(amount);
        if (overflows(currency, amount)) {
            throw new IllegalArgumentException("issuing " + amount + " more tickets of " + currency.name
                    + " would overflow its total of " + currency.issuedAmount);
        }
    }

    private <N extends ShareNode> N owned(N node, String role) {
        Objects.requireNonNull(node, role);
        if (node.graph != this) {
            throw new IllegalArgumentException(node + " belongs to another graph");
        }
        return node;
    }

    /**
     * {@link #owned}, not a client's own currency, which only the graph funds and issues, and not
     * removed.
     */
    private CurrencyNode shared(CurrencyNode currency, String role) {
        owned(currency, role);
        if (currency.owner != null) {
            throw new IllegalArgumentException(role + " " + currency.name + " is " + currency.owner + "'s own currency");
        }
        if (currency.removed) {
            throw new IllegalArgumentException(role + " " + currency.name + " was retired");
        }
        return currency;
    }

    private void live(ClientNode client) {
        owned(client, "client");
        if (client.removed) {
            throw new IllegalArgumentException(client + " was removed");
        }
    }

    private CurrencyNode liveFunding(Ticket funding) {
        Objects.requireNonNull(funding, "funding");
        if (!(funding.holder instanceof CurrencyNode holder) || holder.owner != null) {
            throw new IllegalArgumentException("not a funding ticket: " + funding); // a client's ticket or a loan
        }
        owned(holder, "funding");
        if (funding.isDetached()) {
            throw new IllegalArgumentException("funding ticket was withdrawn: " + funding);
        }
        return holder;
    }
}
