package dev.rota;

/**
 * Figures of one worker, read without stopping it (each figure is exact for its worker, the set of
 * them a moment's snapshot).
 *
 * @param worker    the worker's index
 * @param cpu       the CPU it was assigned
 * @param completed tasks it ran to completion or to an exception
 * @param stolen    tasks it took from other workers' queues
 * @param parks     times it went to sleep for want of work
 * @param queued    an estimate of the tasks waiting in its own inbox and deque
 */
public record WorkerStats(int worker, int cpu, long completed, long stolen, long parks, int queued) {}
