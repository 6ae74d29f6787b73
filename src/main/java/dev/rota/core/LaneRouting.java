package dev.rota.core;

/**
 * What a {@link Lane} holds that submitters read on every offer and nobody writes: its group, its
 * worker's index and its queues. In a superclass so that HotSpot lays these out first, past the
 * header's line ({@link HeaderLinePad}) and before the lane's padded counters; in the lane itself,
 * after its longs, they would sit at the object's end, on a line shared with whatever object follows
 * in memory.
 */
abstract class LaneRouting extends HeaderLinePad {
    final Group group;
    /** Index of the worker that owns the deque. */
    final int worker;
    final Inbox inbox;
    final TaskDeque deque = new TaskDeque();

    LaneRouting(Group group, int worker, int inboxChunk) {
        this.group = group;
        this.worker = worker;
        this.inbox = new Inbox(inboxChunk);
    }
}
