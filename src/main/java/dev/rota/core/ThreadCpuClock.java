package dev.rota.core;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The CPU time of the calling thread, for charging the tasks that spare threads run. A spare shares
 * its CPU: with other spares standing in for the same worker one after another (a spare finishes
 * its task after the wait it stood in for has ended), and with that worker once it runs again. Each
 * of them timed by the wall clock would be charged for the time the others used, and the pool would
 * charge its groups more time than its CPUs have. Where the JVM cannot measure a thread's CPU time
 * the wall clock stands in for it, and the caller subtracts what it knows to be blocked time.
 *
 * <p>Workers keep the wall clock ({@link System#nanoTime()}): each has its CPU to itself but for
 * spares, and reads the clock far too often for a system call each time.
 */
final class ThreadCpuClock {
    private ThreadCpuClock() {}

    /** True when {@link #now()} is the thread's CPU time; false when it is the wall clock. */
    static boolean measuresCpu() {
        return Holder.CPU;
    }

    /** The calling thread's CPU time in nanoseconds, or the wall clock (see {@link #measuresCpu()}); only differences mean anything. */
    static long now() {
        return Holder.CPU ? Holder.THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Loaded on the first spare's task, not with the pool. */
    private static final class Holder {
        static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
    }
}
