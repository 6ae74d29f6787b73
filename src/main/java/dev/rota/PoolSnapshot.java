package dev.rota;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Figures of a {@link RotaPool} at one moment: every live group and every worker.
 *
 * @param nanoTime {@link System#nanoTime()} when it was taken, to turn two snapshots into rates
 * @param groups   the live groups, the default group first
 * @param workers  the workers, in worker order
 */
public record PoolSnapshot(long nanoTime, List<GroupStats> groups, List<WorkerStats> workers) {

    /** @throws NullPointerException naming {@code groups} or {@code workers}, or the index of a null element */
    public PoolSnapshot {
        groups = NonNullLists.copyOf(groups, "groups");
        workers = NonNullLists.copyOf(workers, "workers");
    }

    /**
     * The figures of the group named {@code name}, if one was live. A name may stand for another
     * group in a later snapshot (a terminated group's name is free again): to diff two snapshots,
     * match groups by {@link GroupStats#id()}, as {@link #group(TaskGroup)} does.
     *
     * @throws NullPointerException if {@code name} is null
     */
    public Optional<GroupStats> group(String name) {
        Objects.requireNonNull(name, "name");
        return groups.stream().filter(g -> g.name().equals(name)).findFirst();
    }

    /** The figures of {@code group}, if it was live; a later group of the same name is not it. */
    public Optional<GroupStats> group(TaskGroup group) {
        Objects.requireNonNull(group, "group");
        long id = group.id();
        return groups.stream().filter(g -> g.id() == id).findFirst();
    }
}
