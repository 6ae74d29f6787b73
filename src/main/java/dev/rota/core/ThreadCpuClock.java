package dev.rota.core;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time of the calling thread, for charging the tasks that spare threads run. A spare shares
 * its CPU: with other spares standing in for the same worker one after another (a spare finishes
 * its task after the wait it stood in for has ended), and with that worker once it runs again. Each
 * of them timed by the wall clock would be charged for the time the others used, and the pool would
 * charge its groups more time than its CPUs have. Where the JVM cannot measure a thread's CPU time,
 * or the application has switched the measurement off ({@link ThreadMXBean#setThreadCpuTimeEnabled},
 * at any time), the wall clock stands in for it, and the caller subtracts what it knows to be
 * blocked time: see {@link #used}.
 *
 * <p>Workers keep the wall clock ({@link System#nanoTime()}): each has its CPU to itself but for
 * spares, and reads the clock far too often for a system call each time.
 */
final class ThreadCpuClock {
    private ThreadCpuClock() {}

    /**
     * The calling thread's CPU time in nanoseconds (only differences mean anything), or -1 when it is
     * not measured now: not supported by the JVM, or switched off.
     */
    static long now() {
        return Holder.SUPPORTED ? Holder.THREADS.getCurrentThreadCpuTime() : -1;
    }

    /**
     * The time to charge for a stretch of the calling thread's work: the CPU time between
     * {@code cpuStart} and {@code cpuEnd} (two readings of {@link #now()}) when both were measured,
     * else the wall-clock time {@code wallNanos} less {@code blockedNanos}. A reading of -1 at either
     * end (the measurement was off, or switched on or off in between) says nothing of the CPU used.
     */
    static long used(long cpuStart, long cpuEnd, long wallNanos, long blockedNanos) {
        return Math.max(0, cpuStart >= 0 && cpuEnd >= 0 ? cpuEnd - cpuStart : wallNanos - blockedNanos);
    }

    /** Loaded on the first spare's task, not with the pool. */
    private static final class Holder {
        static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        static final boolean SUPPORTED = THREADS.isCurrentThreadCpuTimeSupported();
    }
}
