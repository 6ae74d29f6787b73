package dev.rota.share;

/**
 * A positive amount of one currency held by a client or backing another currency.
 *
 * <p>A ticket is active while its holder competes: a client's use ticket of its own currency while
 * the client is active; any other (a funding ticket, a client's ticket of its currency, a loan)
 * while the currency it backs has a non-zero active amount. Its value in base units is
 * its face amount for the base currency, otherwise {@code value(issuer) × amount / activeAmount(issuer)}
 * while active, and 0 while inactive.
 */
public final class Ticket {
    final CurrencyNode issuer;
    final ShareNode holder;
    long amount;
    boolean active;
    /** Position in {@code issuer.issued}, for removal in O(1). */
    int issuedIndex = -1;
    /**
     * Position in the funded currency's {@code backing} (a client's own currency for the client's
     * ticket and its loans); -1 for a use ticket and once detached.
     */
    int holderIndex = -1;

    Ticket(CurrencyNode issuer, ShareNode holder, long amount) {
        this.issuer = issuer;
        this.holder = holder;
        this.amount = amount;
    }

    public long amount() {
        return amount;
    }

    /** The currency this ticket is denominated in. */
    public CurrencyNode currency() {
        return issuer;
    }

    /** The client or currency this ticket funds. */
    public ShareNode holder() {
        return holder;
    }

    public boolean isActive() {
        return active;
    }

    /** True once the ticket was unfunded or its client removed. */
    public boolean isDetached() {
        return issuedIndex < 0;
    }

    /** Current value in base units; 0 while inactive. */
    public double value() {
        if (!active) {
            return 0;
        }
        if (issuer.base) {
            return amount;
        }
        return issuer.value * amount / issuer.activeAmount;
    }

    @Override
    public String toString() {
        return amount + "." + issuer.name + " -> " + holder.name;
    }
}
