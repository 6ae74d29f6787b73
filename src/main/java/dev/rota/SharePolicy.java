package dev.rota;

/**
 * How a {@link RotaPool} divides CPU time between its {@link TaskGroup}s, in proportion to the value
 * of their tickets. Both charge a group the CPU time its tasks really used, measured around each
 * slice, so a group whose tasks are short or that runs out of work early loses nothing.
 */
public enum SharePolicy {
    /**
     * Stride scheduling (Waldspurger and Weihl, 1995): deterministic. Each group advances a virtual
     * time by the CPU time it used divided by its value; the group furthest behind runs next. Between
     * any two groups the error stays within about a quantum per worker, however long the pool runs.
     * The default.
     */
    STRIDE,
    /**
     * Lottery scheduling (Waldspurger and Weihl, 1994): each slice goes to a group drawn at random
     * with probability proportional to its value, with compensation for partial quanta. Correct in
     * expectation; the error of a group's share after n slices grows like the square root of n.
     */
    LOTTERY
}
