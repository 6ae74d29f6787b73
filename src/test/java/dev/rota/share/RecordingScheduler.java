package dev.rota.share;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A ShareScheduler that only records what it is told, to check what a graph hands over. */
final class RecordingScheduler implements ShareScheduler {
    final Map<Integer, Double> values = new HashMap<>();
    final List<String> removals = new ArrayList<>();

    @Override
    public void setValue(int client, double value) {
        values.put(client, value);
    }

    @Override
    public void remove(int client) {
        values.remove(client);
        removals.add("remove " + client);
    }

    @Override
    public int pick() {
        return NONE;
    }

    @Override
    public int pick(java.util.function.IntPredicate eligible) {
        return NONE;
    }

    @Override
    public void charge(int client, long usedNanos, long quantumNanos) {}
}
