package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One group's queues on one worker: an {@link Inbox} for submissions from other threads and a
 * {@link TaskDeque} for the tasks this worker moved out of an inbox or forked while running the
 * group. Every task in a lane belongs to the lane's group, so whoever runs it knows whom to charge.
 *
 * <p>The owning worker pushes and pops the deque and usually drains the inbox; other workers running
 * a slice of the same group steal from both (W1 and I1 hold per lane, as they did per worker).
 */
final class Lane extends LaneRouting {
    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(Lane.class, "completed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /*
     * The fields below are written by the owning worker, the counter after every task; submitters
     * read the superclass's fields on every offer. HotSpot lays out longs in declaration order, after
     * the superclass's fields, so the padding keeps the owner's fields on a line of their own, off
     * those fields and off whatever object follows this one in memory.
     */
    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;
    /** Tasks of this group run by the owning worker; written by it only (opaque), read by anyone. */
    private long completed;
    /**
     * Owner only: tasks a slice of this group on the owning worker runs between two looks at the
     * clock, estimated from the last such slice (see {@link Worker#MAX_CLOCK_INTERVAL}). Per group,
     * because the estimate holds only for tasks like the ones it was made from. A long to keep it on
     * the counter's line.
     */
    private long clockInterval = 1;
    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;

    Lane(Group group, int worker, int inboxChunk) {
        super(group, worker, inboxChunk);
    }

    /** Owner only: one more task of this group has run on this worker. */
    void countCompleted() {
        COMPLETED.setOpaque(this, completed + 1);
    }

    long completed() {
        return (long) COMPLETED.getOpaque(this);
    }

    /** Owner only: see {@link #clockInterval}. */
    int clockInterval() {
        return (int) clockInterval;
    }

    /** Owner only: see {@link #clockInterval}. */
    void setClockInterval(int interval) {
        clockInterval = interval;
    }

    /** An estimate of the tasks waiting in this lane. */
    int size() {
        return inbox.size() + deque.size();
    }
}
