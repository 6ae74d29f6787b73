package dev.rota.share;

/**
 * Where clients may run: the workers of a pool and, for each client, the ones its CPU mask allows.
 * A policy reads it under the caller's lock, as it does everything else. {@link #allows} may
 * change between calls (the pool's answer widens when every worker a mask allows has exited);
 * {@link #isRestricted} is read when a client joins and again when the caller says its mask
 * changed ({@link ShareScheduler#forgiveCredit}).
 */
public interface Placement {

    /** Number of workers, named 0 to {@code workers() - 1}. */
    int workers();

    /** True when {@code client} may run on {@code worker}. */
    boolean allows(int client, int worker);

    /** True when {@code client} may not run on every worker. */
    boolean isRestricted(int client);
}
