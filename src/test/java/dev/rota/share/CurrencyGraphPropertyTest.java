package dev.rota.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random operations on a graph (loans included), checked after each one against a from-scratch
 * evaluation of a shadow model that knows only the definitions of the lottery paper, with every
 * client's own currency (see ClientNode) spelt out: backed by the client's ticket and the loans it
 * holds, issuing one share to the client's use while it is active and one per loan it made whose
 * borrower's own currency is active. Refused operations (bad or overflowing amounts, withdrawn
 * fundings, removed clients) are mixed in, and must leave every figure, issued amounts included, as
 * the model has it.
 */
class CurrencyGraphPropertyTest {

    private static final class Funding {
        final CurrencyNode source;
        final CurrencyNode holder;
        final Ticket ticket;
        long amount;

        Funding(CurrencyNode source, CurrencyNode holder, Ticket ticket, long amount) {
            this.source = source;
            this.holder = holder;
            this.ticket = ticket;
            this.amount = amount;
        }
    }

    private static final class Client {
        final ClientNode node;
        long amount;
        boolean active;

        Client(ClientNode node, long amount) {
            this.node = node;
            this.amount = amount;
        }
    }

    private record Loan(Client lender, Client borrower, Ticket ticket) {}

    private final CurrencyGraph graph = new CurrencyGraph();
    private final List<Loan> loans = new ArrayList<>();
    private final List<CurrencyNode> currencies = new ArrayList<>(List.of(graph.base()));
    private final List<Funding> fundings = new ArrayList<>();
    private final List<Client> clients = new ArrayList<>();
    private final List<ClientNode> removedClients = new ArrayList<>();
    private final List<Ticket> withdrawnFundings = new ArrayList<>();
    private final RecordingScheduler scheduler = new RecordingScheduler();
    private int names;
    private int removedCurrencies;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 20260101})
    void incrementalValuesShouldEqualRecomputationFromScratch(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int step = 0; step < 4_000; step++) {
            applyRandomOperation(random);
            checkAgainstModel(step);
        }
        assertTrue(clients.stream().anyMatch(c -> c.active), "the run should end with active clients");
        assertTrue(removedCurrencies > 0, "the run should remove currencies");
    }

    private void applyRandomOperation(SplittableRandom random) {
        int kind = random.nextInt(100);
        long amount = 1 + random.nextLong(1_000);
        if (kind < 6 && currencies.size() < 16) {
            CurrencyNode parent = pick(random, currencies);
            CurrencyNode currency = graph.newCurrency("c" + names++, parent, amount);
            currencies.add(currency);
            fundings.add(new Funding(parent, currency, currency.backing().getFirst(), amount));
        } else if (kind < 12 && currencies.size() > 1) {
            CurrencyNode holder = currencies.get(1 + random.nextInt(currencies.size() - 1));
            CurrencyNode source = pick(random, currencies);
            if (reaches(holder, source)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> graph.fundFrom(holder, source, amount));
                assertTrue(e.getMessage().startsWith("funding " + holder.name() + " from " + source.name()
                        + " would make a cycle: " + holder.name()), e.getMessage());
            } else {
                fundings.add(new Funding(source, holder, graph.fundFrom(holder, source, amount), amount));
            }
        } else if (kind < 18 && clients.size() < 40) {
            ClientNode node = graph.newClient("k" + names++, pick(random, currencies), amount);
            clients.add(new Client(node, amount));
        } else if (kind < 24 && !clients.isEmpty()) {
            Client client = pick(random, clients);
            graph.setTickets(client.node, amount);
            client.amount = amount;
        } else if (kind < 30 && !fundings.isEmpty()) {
            Funding funding = pick(random, fundings);
            graph.setTickets(funding.ticket, amount);
            funding.amount = amount;
        } else if (kind < 33 && !fundings.isEmpty()) {
            Funding funding = fundings.remove(random.nextInt(fundings.size()));
            graph.unfund(funding.ticket);
            withdrawnFundings.add(funding.ticket);
        } else if (kind < 36 && !clients.isEmpty()) {
            Client client = clients.remove(random.nextInt(clients.size()));
            graph.remove(client.node);
            removedClients.add(client.node);
            loans.removeIf(loan -> loan.borrower == client || loan.lender == client);
        } else if (kind < 40 && clients.size() >= 2) {
            Client lender = pick(random, clients);
            Client borrower = pick(random, clients);
            if (lender == borrower || lendsTo(borrower, lender)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> graph.lend(lender.node, borrower.node));
                if (lender != borrower) {
                    assertTrue(e.getMessage().startsWith("a loan from " + lender.node.name() + " to "
                            + borrower.node.name() + " would make a cycle of loans: " + borrower.node.name()), e.getMessage());
                }
            } else {
                loans.add(new Loan(lender, borrower, graph.lend(lender.node, borrower.node)));
            }
        } else if (kind < 43 && !loans.isEmpty()) {
            Loan loan = loans.remove(random.nextInt(loans.size()));
            graph.repay(loan.ticket);
            graph.repay(loan.ticket);                    // a second repayment changes nothing
        } else if (kind < 45) {
            applyRefusedOperation(random);
        } else if (kind < 46 && currencies.size() > 1) {
            // One that funds nothing if there is one (they are rare: clients come faster than they go).
            List<CurrencyNode> unused = currencies.stream().filter(c -> !c.isBase() && c.issued().isEmpty()).toList();
            CurrencyNode currency = unused.isEmpty() || random.nextInt(4) == 0
                    ? currencies.get(1 + random.nextInt(currencies.size() - 1)) : pick(random, unused);
            if (currency.issued().isEmpty()) {
                graph.removeCurrency(currency);
                removedCurrencies++;
                currencies.remove(currency);
                fundings.removeIf(funding -> {
                    boolean backedIt = funding.holder == currency;
                    if (backedIt) {
                        withdrawnFundings.add(funding.ticket);
                    }
                    return backedIt;
                });
            } else {
                assertThrows(IllegalStateException.class, () -> graph.removeCurrency(currency));
            }
        } else if (kind < 70 && !clients.isEmpty()) {
            Client client = pick(random, clients);
            assertEquals(!client.active, graph.activate(client.node));
            client.active = true;
        } else if (!clients.isEmpty()) {
            Client client = pick(random, clients);
            assertEquals(client.active, graph.deactivate(client.node));
            client.active = false;
        }
        graph.drainChanged(scheduler);
    }

    /**
     * An operation the graph must refuse, naming what is wrong, without changing anything: the
     * check after it compares the whole graph with the model, which the refusal left as it was.
     */
    private void applyRefusedOperation(SplittableRandom random) {
        long bad = random.nextBoolean() ? 0 : -1 - random.nextLong(Long.MAX_VALUE);
        switch (random.nextInt(6)) {
            case 0 -> {
                if (!clients.isEmpty()) {
                    Client client = pick(random, clients);
                    assertRefused("tickets must be positive: " + bad, () -> graph.setTickets(client.node, bad));
                }
            }
            case 1 -> {
                if (!fundings.isEmpty()) {
                    Funding funding = pick(random, fundings);
                    assertRefused("tickets must be positive: " + bad, () -> graph.setTickets(funding.ticket, bad));
                }
            }
            case 2 -> {
                if (!fundings.isEmpty()) {
                    // Raising a ticket so that its currency's total passes Long.MAX_VALUE.
                    Funding funding = pick(random, fundings);
                    long room = Long.MAX_VALUE - funding.source.issuedAmount();
                    if (room < Long.MAX_VALUE - funding.amount) {
                        long amount = funding.amount + room + 1 + random.nextLong(Long.MAX_VALUE - funding.amount - room);
                        assertRefused("would overflow", () -> graph.setTickets(funding.ticket, amount));
                    }
                }
            }
            case 3 -> {
                CurrencyNode currency = pick(random, currencies);
                long room = Long.MAX_VALUE - currency.issuedAmount();
                if (room < Long.MAX_VALUE) {
                    long amount = room + 1 + random.nextLong(Long.MAX_VALUE - room);
                    assertRefused("would overflow", () -> graph.newClient("k" + names, currency, amount));
                    assertRefused("would overflow", () -> graph.newCurrency("c" + names, currency, amount));
                }
            }
            case 4 -> {
                if (!withdrawnFundings.isEmpty()) {
                    Ticket withdrawn = pick(random, withdrawnFundings);
                    assertRefused("funding ticket was withdrawn", () -> graph.unfund(withdrawn));
                    assertRefused("funding ticket was withdrawn", () -> graph.setTickets(withdrawn, 1));
                }
            }
            default -> {
                if (!removedClients.isEmpty() && !clients.isEmpty()) {
                    ClientNode removed = pick(random, removedClients);
                    Client live = pick(random, clients);
                    assertRefused("was removed", () -> graph.activate(removed));
                    assertRefused("was removed", () -> graph.setTickets(removed, 1));
                    assertRefused("was removed", () -> graph.lend(removed, live.node));
                    assertRefused("was removed", () -> graph.lend(live.node, removed));
                }
            }
        }
    }

    private static void assertRefused(String message, Runnable operation) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, operation::run);
        assertTrue(e.getMessage().contains(message), () -> "'" + e.getMessage() + "' should say '" + message + "'");
    }

    private void checkAgainstModel(int step) {
        Evaluation expected = new Evaluation();
        for (CurrencyNode currency : currencies) {
            assertEquals(expected.activeAmount(currency), currency.activeAmount(),
                    () -> "active amount of " + currency.name() + " at step " + step);
            assertClose(expected.value(currency), currency.value(), "value of " + currency.name(), step);
            assertEquals(expected.issuedAmount(currency), currency.issuedAmount(),
                    () -> "issued amount of " + currency.name() + " at step " + step);
        }
        for (Funding funding : fundings) {
            assertEquals(expected.activeAmount(funding.holder) > 0, funding.ticket.isActive(),
                    () -> "activity of " + funding.ticket + " at step " + step);
        }
        Map<Integer, Client> live = new HashMap<>();
        for (Loan loan : loans) {
            assertEquals(expected.ownActiveAmount(loan.borrower) > 0, loan.ticket.isActive(),
                    () -> "activity of " + loan.ticket + " at step " + step);
        }
        for (Client client : clients) {
            double value = client.active ? expected.ownValue(client) / expected.ownActiveAmount(client) : 0;
            assertClose(value, client.node.value(), "value of " + client.node.name(), step);
            // The scheduler learnt every change: it holds exactly the graph's value.
            assertEquals(client.node.value(), scheduler.values.getOrDefault(client.node.id(), 0.0),
                    () -> "scheduler's value of " + client.node.name() + " at step " + step);
            live.put(client.node.id(), client);
        }
        assertTrue(live.keySet().containsAll(scheduler.values.keySet()), "scheduler knows a removed client");
    }

    private static void assertClose(double expected, double actual, String what, int step) {
        assertEquals(expected, actual, 1e-9 * Math.max(1, Math.abs(expected)), () -> what + " at step " + step);
    }

    /** True if {@code from} lends to {@code to}, directly or along a chain of loans. */
    private boolean lendsTo(Client from, Client to) {
        for (Loan loan : loans) {
            if (loan.lender == from && (loan.borrower == to || lendsTo(loan.borrower, to))) {
                return true;
            }
        }
        return false;
    }

    /** True if funding runs from {@code from} down to {@code to} (or they are the same). */
    private boolean reaches(CurrencyNode from, CurrencyNode to) {
        if (from == to) {
            return true;
        }
        for (Funding funding : fundings) {
            if (funding.source == from && reaches(funding.holder, to)) {
                return true;
            }
        }
        return false;
    }

    /** The paper's definitions, evaluated recursively with memoization over the shadow model. */
    private final class Evaluation {
        private final Map<CurrencyNode, Long> activeAmounts = new HashMap<>();
        private final Map<CurrencyNode, Double> values = new HashMap<>();

        long activeAmount(CurrencyNode currency) {
            Long known = activeAmounts.get(currency);
            if (known != null) {
                return known;
            }
            long sum = 0;
            for (Client client : clients) {
                if (client.node.currency() == currency && ownActiveAmount(client) > 0) {
                    sum += client.amount;
                }
            }
            for (Funding funding : fundings) {
                if (funding.source == currency && activeAmount(funding.holder) > 0) {
                    sum += funding.amount;
                }
            }
            activeAmounts.put(currency, sum);
            return sum;
        }

        /** Every ticket of the currency, active or not: its clients' and the currencies it funds. */
        long issuedAmount(CurrencyNode currency) {
            long sum = 0;
            for (Client client : clients) {
                if (client.node.currency() == currency) {
                    sum += client.amount;
                }
            }
            for (Funding funding : fundings) {
                if (funding.source == currency) {
                    sum += funding.amount;
                }
            }
            return sum;
        }

        double value(CurrencyNode currency) {
            if (currency.isBase()) {
                return activeAmount(currency);
            }
            Double known = values.get(currency);
            if (known != null) {
                return known;
            }
            double sum = 0;
            if (activeAmount(currency) > 0) {
                for (Funding funding : fundings) {
                    if (funding.holder == currency) {
                        sum += ticketValue(funding.source, funding.amount);
                    }
                }
            }
            values.put(currency, sum);
            return sum;
        }

        /** Shares of the client's own currency that are active: its use, and its loans to active borrowers. */
        long ownActiveAmount(Client client) {
            long sum = client.active ? 1 : 0;
            for (Loan loan : loans) {
                if (loan.lender == client && ownActiveAmount(loan.borrower) > 0) {
                    sum++;
                }
            }
            return sum;
        }

        /** The client's ticket and the loans it holds, while its own currency is active. */
        double ownValue(Client client) {
            if (ownActiveAmount(client) == 0) {
                return 0;
            }
            double sum = ticketValue(client.node.currency(), client.amount);
            for (Loan loan : loans) {
                if (loan.borrower == client) {
                    sum += ownValue(loan.lender) / ownActiveAmount(loan.lender);
                }
            }
            return sum;
        }

        double ticketValue(CurrencyNode currency, long amount) {
            return currency.isBase() ? amount : value(currency) * amount / activeAmount(currency);
        }
    }

    private static <T> T pick(SplittableRandom random, List<T> list) {
        return list.get(random.nextInt(list.size()));
    }
}
