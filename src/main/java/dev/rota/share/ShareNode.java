package dev.rota.share;

/**
 * A vertex of a {@link CurrencyGraph}: a currency or a client, with its current value in base units.
 * Nodes are created and changed only through their graph; this view is read-only.
 */
public abstract sealed class ShareNode permits CurrencyNode, ClientNode {
    final CurrencyGraph graph;
    final String name;
    /** Value in base units, kept current by the graph after every operation. */
    double value;
    /** Visit stamp of the graph's traversals; equal to the graph's current epoch once visited. */
    long visitEpoch;

    ShareNode(CurrencyGraph graph, String name) {
        this.graph = graph;
        this.name = name;
    }

    public final String name() {
        return name;
    }

    /** The value of this node in base units (0 for an inactive client). */
    public final double value() {
        return value;
    }
}
