package dev.rota;

import dev.rota.core.Dispatcher;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tickets of one group lent to another until {@link #close()}: ticket transfer, for a wait the pool
 * cannot see by itself. While the loan lasts the lender's value goes to the borrower, shared in equal
 * parts with the lender's own remaining work and its other loans, so work the lender waits for runs
 * at the lender's rate (see {@link TaskGroup#lendTo}).
 *
 * {@snippet :
 * try (Loan loan = gold.lendTo(storage)) {
 *     reply = storageClient.call(request);     // storage's tasks run at gold's rate meanwhile
 * }
 * }
 */
public final class Loan implements AutoCloseable {
    private final Dispatcher dispatcher;
    private final Dispatcher.Wait wait;
    private final TaskGroup lender;
    private final TaskGroup borrower;
    private final AtomicBoolean closed = new AtomicBoolean();

    Loan(Dispatcher dispatcher, Dispatcher.Wait wait, TaskGroup lender, TaskGroup borrower) {
        this.dispatcher = dispatcher;
        this.wait = wait;
        this.lender = lender;
        this.borrower = borrower;
    }

    public TaskGroup lender() {
        return lender;
    }

    public TaskGroup borrower() {
        return borrower;
    }

    /** Ends the loan; later calls do nothing, nor does a call once the lender or the borrower has terminated. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && wait != null) {
            dispatcher.endWait(wait);
        }
    }

    @Override
    public String toString() {
        boolean ended = closed.get() || lender.isTerminated() || borrower.isTerminated();
        return "loan of " + lender.name() + "'s tickets to " + borrower.name() + (ended ? " (ended)" : "");
    }
}
