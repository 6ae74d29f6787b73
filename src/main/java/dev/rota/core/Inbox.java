package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * Multi-producer inbox of one worker: tasks submitted from any thread wait here until a worker
 * moves them into its {@link TaskDeque}. Usually the owning worker drains it; an idle worker may
 * drain another's inbox so that no task waits behind a long-running one. Whether a task may be
 * offered at all is its group's {@link Admission}'s decision, made before the offer.
 *
 * <p>Invariant I1: the JCTools queue is single-consumer; the consumer is whoever holds the consumer
 * token, so at most one thread polls at a time.
 *
 * <p>Memory ordering: acquiring the token is a CAS (acquire) and releasing it a release store; the
 * queue's consumer-side fields are written plainly by one holder and read by the next, ordered by
 * that release/acquire pair.
 */
public final class Inbox extends InboxQueueField {
    /** Chunk of the unbounded queue by default; one allocation per this many tasks in flight. */
    static final int DEFAULT_CHUNK = 1024;
    /** Token value of an inbox whose consumer is gone for good (shutdownNow drained it). */
    private static final long STOPPED = 2;
    private static final VarHandle TOKEN;

    static {
        try {
            TOKEN = MethodHandles.lookup().findVarHandle(Inbox.class, "token", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /*
     * Layout: the queue (in the superclass) on a line that no consumer writes; the token, which every
     * take writes twice, between padding on a line of its own, so that neither the queue's line nor
     * whatever object follows this one in memory shares it. A long, so that HotSpot lays it out among
     * the padding in declaration order (an int would go to the hole before the first long).
     */
    @SuppressWarnings("unused")
    private long p1, p2, p3, p4, p5, p6, p7;
    private volatile long token;
    @SuppressWarnings("unused")
    private long q1, q2, q3, q4, q5, q6, q7;

    public Inbox() {
        this(DEFAULT_CHUNK);
    }

    /** An inbox whose queue grows by chunks of {@code chunk} tasks (a power of two, at least 2). */
    public Inbox(int chunk) {
        super(new MpscUnboundedAtomicArrayQueue<>(chunk));
    }

    /** Adds {@code task}; the caller holds an admission for it. */
    public void offer(Runnable task) {
        queue.offer(task);
    }

    /** Takes the consumer token without waiting; true when this thread may now poll. */
    public boolean tryAcquireConsumer() {
        return token == 0 && TOKEN.compareAndSet(this, 0L, 1L);
    }

    /** Gives the consumer token back. Release: pairs with the next holder's acquire. */
    public void releaseConsumer() {
        TOKEN.setRelease(this, 0L);
    }

    /**
     * Takes the consumer token for good, waiting for a worker that holds it to give it back (it holds
     * it only while it moves one batch). Returns false when another caller took it for good first:
     * that caller drains this inbox.
     */
    public boolean stopConsumer() {
        while (true) {
            long t = token;
            if (t == STOPPED) {
                return false;
            }
            if (t == 0 && TOKEN.compareAndSet(this, 0L, STOPPED)) {
                return true;
            }
            Thread.yield();
        }
    }

    /**
     * Takes one task, or null when none is there to take; the caller holds the token. A task whose
     * producer has claimed its place but not yet written it is waited for, so null means the inbox
     * was empty (for draining it at a stop).
     */
    public Runnable poll() {
        return queue.poll();
    }

    /**
     * Takes one task, or null when none is visible now; the caller holds the token. Unlike
     * {@link #poll()} it reads only the slot at the consumer's index, never the producers' index: the
     * line every producer writes with a CAS on each offer. A worker probes its inbox many times in an
     * idle spell, and a probe that read that line would move it out of the submitter's cache each
     * time, so that the submitter's next offer waits for it (in a profile of one submitter, a sixth
     * of its time went into the CAS and a twelfth into the read). A task whose producer has claimed
     * its place but not yet written it is missed by this call and taken by a later one; the search
     * before parking does not park on it (W3), since it asks the group's admission, which counts the
     * task from its reservation, made before the offer ({@code Group.hasWork}).
     */
    public Runnable relaxedPoll() {
        return queue.relaxedPoll();
    }

    /**
     * True when some offer has been made that no consumer has taken yet, including one whose element
     * is not yet visible. A volatile read of both queue indices.
     */
    public boolean hasWork() {
        return !queue.isEmpty();
    }

    /** An estimate of the queued tasks. */
    public int size() {
        return queue.size();
    }
}
