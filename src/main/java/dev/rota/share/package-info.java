/**
 * Proportional share of CPU time between task groups: ticket currencies and the two policies that
 * divide time by them.
 *
 * <ul>
 *   <li>{@link dev.rota.share.CurrencyGraph}: currencies funded by tickets of other currencies (a DAG
 *       rooted at the base currency) and the clients they fund, with each client's value in base units
 *       kept current incrementally, and a change list that feeds a scheduler.</li>
 *   <li>{@link dev.rota.share.ShareScheduler}: the four-method seam (setValue, remove, pick, charge)
 *       that the pool and the simulator drive unchanged.</li>
 *   <li>{@link dev.rota.share.StrideScheduler}: deterministic, least pass first, error within one
 *       quantum between two clients.</li>
 *   <li>{@link dev.rota.share.LotteryScheduler}: randomized draws in a tree of partial sums, with
 *       compensation for partial quanta.</li>
 * </ul>
 *
 * <p>Everything here is single-threaded and deterministic, with no threads and no clocks: time
 * enters only as the {@code usedNanos} a driver charges, measured or virtual. A typical cycle:
 *
 * {@snippet :
 * graph.activate(group);              // the group has work again
 * graph.drainChanged(scheduler);      // new values reach the policy
 * int next = scheduler.pick();        // whose turn it is
 * // ... run a batch of next's tasks for usedNanos ...
 * scheduler.charge(next, usedNanos, quantumNanos);
 * }
 */
package dev.rota.share;
