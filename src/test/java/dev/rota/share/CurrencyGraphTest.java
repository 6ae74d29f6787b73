package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CurrencyGraphTest {
    private static final double EPS = 1e-9;

    /**
     * Figure 3 of the lottery paper: base funds alice with 1000 and bob with 2000; alice issues
     * 100.alice to task1 (its only thread idle) and 200.alice to task2, whose threads hold 200.task2
     * and 300.task2; bob issues 100.bob to task3, whose one thread holds 100.task3.
     */
    @Test
    void shouldValueThePaperExampleByHand() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode alice = graph.newCurrency("alice", graph.base(), 1000);
        CurrencyNode bob = graph.newCurrency("bob", graph.base(), 2000);
        CurrencyNode task1 = graph.newCurrency("task1", alice, 100);
        CurrencyNode task2 = graph.newCurrency("task2", alice, 200);
        CurrencyNode task3 = graph.newCurrency("task3", bob, 100);
        ClientNode thread1 = graph.newClient("thread1", task1, 100);
        ClientNode thread2 = graph.newClient("thread2", task2, 200);
        ClientNode thread3 = graph.newClient("thread3", task2, 300);
        ClientNode thread4 = graph.newClient("thread4", task3, 100);
        graph.activate(thread2);
        graph.activate(thread3);
        graph.activate(thread4);

        // alice = 1000; its active amount is 200 (task1 idle), so task2 = 1000 × 200/200 = 1000;
        // task2's active amount is 500: thread2 = 1000 × 200/500 = 400, thread3 = 1000 × 300/500 = 600.
        // bob = 2000, task3 = 2000 × 100/100, thread4 = 2000 × 100/100 = 2000.
        assertEquals(0, thread1.value());
        assertEquals(400, thread2.value(), EPS);
        assertEquals(600, thread3.value(), EPS);
        assertEquals(2000, thread4.value(), EPS);
        assertEquals(0, task1.value());
        assertEquals(200, alice.activeAmount());
        assertEquals(3000, graph.base().value());

        // thread1 wakes: alice's active amount is 300, task1 = 1000/3, task2 = 2000/3;
        // thread1 = 1000/3, thread2 = 2000/3 × 2/5 = 800/3, thread3 = 2000/3 × 3/5 = 400. Bob is insulated.
        graph.activate(thread1);
        assertEquals(1000.0 / 3, thread1.value(), EPS);
        assertEquals(800.0 / 3, thread2.value(), EPS);
        assertEquals(400, thread3.value(), EPS);
        assertEquals(2000, thread4.value(), EPS);
    }

    @Test
    void shouldInsulateCurrenciesFromEachOthersInflation() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode a = graph.newCurrency("A", graph.base(), 100);
        CurrencyNode b = graph.newCurrency("B", graph.base(), 100);
        ClientNode a1 = active(graph, graph.newClient("100.A", a, 100));
        ClientNode a2 = active(graph, graph.newClient("200.A", a, 200));
        ClientNode b1 = active(graph, graph.newClient("100.B", b, 100));
        ClientNode b2 = active(graph, graph.newClient("200.B", b, 200));
        assertEquals(100.0 / 3, a1.value(), EPS);
        assertEquals(200.0 / 3, a2.value(), EPS);
        assertEquals(100.0 / 3, b1.value(), EPS);
        assertEquals(200.0 / 3, b2.value(), EPS);
        double a1Before = a1.value();
        double a2Before = a2.value();
        graph.drainChanged(c -> {});
        long recomputedBefore = graph.recomputations;

        ClientNode b3 = active(graph, graph.newClient("300.B", b, 300));

        // B's active amount is now 600: only B's clients are diluted, A's keep their exact values.
        assertEquals(a1Before, a1.value());
        assertEquals(a2Before, a2.value());
        assertEquals(100, a1.value() + a2.value(), EPS);
        assertEquals(100.0 / 6, b1.value(), EPS);
        assertEquals(200.0 / 6, b2.value(), EPS);
        assertEquals(300.0 / 6, b3.value(), EPS);
        assertEquals(100, b1.value() + b2.value() + b3.value(), EPS);
        assertEquals(100, a.value(), EPS);
        assertEquals(100, b.value(), EPS);
        // Incremental: B, its three clients and their own currencies were recomputed, nothing of A.
        assertEquals(7, graph.recomputations - recomputedBefore);
        List<String> changed = new ArrayList<>();
        graph.drainChanged(c -> changed.add(c.name()));
        assertEquals(Set.of("100.B", "200.B", "300.B"), Set.copyOf(changed));
        assertEquals(3, changed.size());

        // B idle: its backing ticket is inactive, and A holds the whole active base value.
        graph.deactivate(b1);
        graph.deactivate(b2);
        graph.deactivate(b3);
        assertEquals(0, b.value());
        assertFalse(b.backing().getFirst().isActive());
        assertEquals(100, graph.base().value(), EPS);
        assertEquals(graph.base().value(), a1.value() + a2.value(), EPS);
        assertEquals(1.0, a.value() / graph.base().value(), EPS);

        // B wakes: its backing ticket is active again.
        graph.activate(b2);
        assertTrue(b.backing().getFirst().isActive());
        assertEquals(100, b2.value(), EPS);
        assertEquals(200, graph.base().value(), EPS);
    }

    @Test
    void shouldDeactivateBackingTicketsRecursivelyAndReactivateThem() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode x = graph.newCurrency("x", graph.base(), 50);
        CurrencyNode y = graph.newCurrency("y", x, 10);
        CurrencyNode z = graph.newCurrency("z", y, 10);
        ClientNode leaf = graph.newClient("leaf", z, 1);
        assertEquals(0, graph.base().activeAmount());
        graph.activate(leaf);
        assertEquals(50, graph.base().activeAmount());
        assertEquals(10, x.activeAmount());
        assertEquals(50, leaf.value(), EPS);
        graph.deactivate(leaf);
        assertEquals(0, graph.base().activeAmount());
        assertEquals(0, x.activeAmount());
        assertEquals(0, y.activeAmount());
        assertEquals(0, leaf.value());
        assertFalse(x.backing().getFirst().isActive());
    }

    @Test
    void shouldAddValuesOfSeveralBackingTicketsAndFollowFundingChanges() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode left = graph.newCurrency("left", graph.base(), 300);
        CurrencyNode right = graph.newCurrency("right", graph.base(), 100);
        ClientNode other = active(graph, graph.newClient("other", right, 1));
        CurrencyNode shared = graph.newCurrency("shared", left, 10);
        Ticket fromRight = graph.fundFrom(shared, right, 1);
        ClientNode client = active(graph, graph.newClient("client", shared, 7));
        // left: 300 × 10/10 = 300; right: 100 × 1/(1 + 1) = 50, so shared = 350.
        assertEquals(350, client.value(), EPS);
        assertEquals(50, other.value(), EPS);

        graph.setTickets(fromRight, 3); // right's active amount 4: shared gets 75, other 25
        assertEquals(375, client.value(), EPS);
        assertEquals(25, other.value(), EPS);

        graph.unfund(fromRight);
        assertEquals(300, client.value(), EPS);
        assertEquals(100, other.value(), EPS);
        assertEquals(1, right.issuedAmount());

        graph.setTickets(client, 1_000); // alone in its currency: same value
        assertEquals(300, client.value(), EPS);
    }

    @Test
    void shouldNameTheCycleThatFundingWouldMake() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode a = graph.newCurrency("a", graph.base(), 10);
        CurrencyNode b = graph.newCurrency("b", a, 10);
        CurrencyNode c = graph.newCurrency("c", b, 10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> graph.fundFrom(a, c, 1));
        assertEquals("funding a from c would make a cycle: a -> b -> c -> a", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> graph.fundFrom(b, b, 1));
        assertEquals("funding b from b would make a cycle: b -> b", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> graph.fundFrom(graph.base(), c, 1));
        assertEquals("the base currency base cannot be funded", e.getMessage());
        graph.fundFrom(c, a, 5); // a diamond is no cycle
        assertEquals(2, c.backing().size());
    }

    @Test
    void shouldRejectBadAmountsNamingTheValue() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode c = graph.newCurrency("c", graph.base(), 1);
        ClientNode big = graph.newClient("big", c, Long.MAX_VALUE - 1);
        assertMessage("tickets must be positive: 0", () -> graph.newClient("zero", c, 0));
        assertMessage("tickets must be positive: -5", () -> graph.newCurrency("neg", c, -5));
        assertMessage("tickets must be positive: 0", () -> graph.setTickets(big, 0));
        assertMessage("issuing 2 more tickets of c would overflow its total of 9223372036854775806",
                () -> graph.newClient("more", c, 2));
        ClientNode one = graph.newClient("one", c, 1);
        assertMessage("setting one's tickets of c to 2 would overflow their total of 9223372036854775807",
                () -> graph.setTickets(one, 2));
        Ticket funding = c.backing().getFirst();
        assertMessage("tickets must be positive: -1", () -> graph.setTickets(funding, -1));
        graph.activate(big);
        graph.activate(one);
        assertEquals(Long.MAX_VALUE, c.activeAmount());
        assertEquals(1, big.value() + one.value(), EPS);
    }

    @Test
    void shouldRejectDuplicateNamesAndForeignOrRemovedNodes() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode gold = graph.newCurrency("gold", graph.base(), 1);
        assertMessage("name already in use: gold", () -> graph.newClient("gold", gold, 1));
        assertMessage("name already in use: base", () -> graph.newCurrency("base", gold, 1));
        assertMessage("name must not be blank: ' '", () -> graph.newClient(" ", gold, 1));
        CurrencyGraph other = new CurrencyGraph();
        assertMessage("currency base belongs to another graph", () -> graph.newClient("x", other.base(), 1));
        ClientNode gone = graph.newClient("gone", gold, 1);
        graph.remove(gone);
        assertMessage("client gone was removed", () -> graph.activate(gone));
        ClientNode again = graph.newClient("gone", gold, 1); // name and id are free again
        assertEquals(gone.id(), again.id());
    }

    @Test
    void shouldRemoveACurrencyOnlyOnceNothingDrawsOnItAndFreeItsName() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode partners = graph.newCurrency("partners", graph.base(), 50);
        CurrencyNode tenants = graph.newCurrency("tenants", graph.base(), 100);
        Ticket extra = graph.fundFrom(tenants, partners, 10);
        ClientNode t1 = active(graph, graph.newClient("t1", tenants, 1));
        CurrencyNode sub = graph.newCurrency("sub", tenants, 5);

        IllegalStateException busy = assertThrows(IllegalStateException.class, () -> graph.removeCurrency(tenants));
        assertEquals("currency tenants still funds t1, sub", busy.getMessage());
        assertFalse(tenants.isRemoved());
        assertEquals(150, graph.value(tenants), EPS, "a refused removal changes nothing");

        graph.remove(t1);
        graph.removeCurrency(sub);
        assertEquals(0, tenants.issuedAmount());
        graph.removeCurrency(tenants);
        assertTrue(tenants.isRemoved());
        assertTrue(extra.isDetached(), "its backing is withdrawn");
        assertEquals(0, partners.issuedAmount());
        assertEquals(List.of(partners), graph.base().issued().stream().map(Ticket::holder).toList());

        assertMessage("currency tenants was retired", () -> graph.newClient("t2", tenants, 1));
        assertMessage("parent tenants was retired", () -> graph.newCurrency("t3", tenants, 1));
        assertMessage("currency tenants was retired", () -> graph.fundFrom(tenants, partners, 1));
        assertMessage("currency tenants was retired", () -> graph.removeCurrency(tenants));
        assertMessage("funding ticket was withdrawn: 10.partners -> tenants", () -> graph.unfund(extra));
        assertMessage("the base currency base cannot be removed", () -> graph.removeCurrency(graph.base()));
        assertEquals("tenants", graph.newCurrency("tenants", partners, 1).name(), "the name is free again");
    }

    @Test
    void shouldReportChangedAndRemovedClientsToAScheduler() {
        CurrencyGraph graph = new CurrencyGraph();
        CurrencyNode c = graph.newCurrency("c", graph.base(), 90);
        ClientNode x = graph.newClient("x", c, 1);
        ClientNode y = graph.newClient("y", c, 2);
        RecordingScheduler scheduler = new RecordingScheduler();
        graph.activate(x);
        graph.activate(y);
        assertEquals(2, graph.drainChanged(scheduler));
        assertEquals(30, scheduler.values.get(x.id()), EPS);
        assertEquals(60, scheduler.values.get(y.id()), EPS);
        assertEquals(0, graph.drainChanged(scheduler));

        graph.deactivate(x);
        graph.drainChanged(scheduler);
        assertEquals(0, scheduler.values.get(x.id()));
        assertEquals(90, scheduler.values.get(y.id()), EPS);

        graph.remove(y);
        ClientNode z = graph.newClient("z", c, 5); // reuses y's id
        graph.activate(z);
        graph.drainChanged(scheduler);
        assertEquals(List.of("remove " + y.id()), scheduler.removals);
        assertEquals(90, scheduler.values.get(z.id()), EPS);
    }

    private static ClientNode active(CurrencyGraph graph, ClientNode client) {
        graph.activate(client);
        return client;
    }

    private static void assertMessage(String message, Runnable action) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action::run);
        assertEquals(message, e.getMessage());
    }
}
