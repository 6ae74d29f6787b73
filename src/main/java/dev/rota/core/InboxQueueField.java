package dev.rota.core;

import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * The queue of an {@link Inbox}, which every offer reads, in a superclass so that HotSpot lays it
 * out first: past the header's line ({@link HeaderLinePad}) and before the padding that keeps it
 * off the consumer token's line. In the inbox itself, after its longs, it would sit at the object's
 * end, on a line shared with whatever object follows in memory.
 */
abstract class InboxQueueField extends HeaderLinePad {
    final MpscUnboundedAtomicArrayQueue<Runnable> queue;

    InboxQueueField(MpscUnboundedAtomicArrayQueue<Runnable> queue) {
        this.queue = queue;
    }
}
