package dev.rota;

import dev.rota.affinity.CpuList;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The CPU time that other processes have used so far on the CPUs this process may run on, in
 * nanoseconds: those CPUs' user, nice and system time ({@code /proc/stat}'s {@code cpuN} lines) less
 * this process's own ({@code /proc/self/stat}: utime and stime of all its threads, which run on those
 * CPUs only). A test that measures how a pool's workers divide their CPUs reads it to tell a machine
 * that other processes kept busy from a pool that misbehaved: a pool that idles its workers, or
 * overruns its slices, does not raise it. Interrupt time is left out, since the pool's own wake-ups
 * cause some. In a container whose {@code /proc/stat} is the host's, the CPUs of this process's
 * cpuset are still the ones read. -1 where a file is missing or of a format this does not know.
 */
final class OtherProcesses {
    private static final long NANOS_PER_TICK = HostSteal.NANOS_PER_TICK;
    private static final Path PROC_STAT = HostSteal.PROC_STAT;
    private static final Path SELF_STAT = Path.of("/proc/self/stat");
    private static final Path SELF_STATUS = Path.of("/proc/self/status");

    private OtherProcesses() {}

    /** Other processes' CPU time on this process's CPUs so far, or -1 where it cannot be read. */
    static long cpuNanosSoFar() {
        try {
            BitSet cpus = allowedCpus();
            long busy = busyTicks(cpus);
            long own = ownTicks();
            return cpus.isEmpty() || busy < 0 || own < 0 ? -1 : Math.max(0, busy - own) * NANOS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** How many CPUs this process may run on ({@code Cpus_allowed_list}), or 0 where it cannot be read. */
    static int allowedCpuCount() {
        try {
            return allowedCpus().cardinality();
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The CPUs of {@code Cpus_allowed_list}, empty where the line is missing. */
    private static BitSet allowedCpus() throws IOException {
        for (String line : Files.readAllLines(SELF_STATUS)) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return CpuList.parse(line.substring(line.indexOf(':') + 1));
            }
        }
        return new BitSet();
    }

    private static long busyTicks(BitSet cpus) throws IOException {
        long sum = 0;
        int seen = 0;
        for (String line : Files.readAllLines(PROC_STAT)) {
            if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
                String[] f = line.trim().split("\\s+");  // cpuN user nice system idle ...
                if (cpus.get(Integer.parseInt(f[0].substring(3)))) {
                    sum += Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]);
                    seen++;
                }
            }
        }
        return seen == cpus.cardinality() ? sum : -1;
    }

    private static long ownTicks() throws IOException {
        String stat = Files.readString(SELF_STAT);
        // pid (comm) state ppid ...: comm may hold spaces, so count fields after its closing parenthesis.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return f.length > 12 ? Long.parseLong(f[11]) + Long.parseLong(f[12]) : -1; // utime, stime (fields 14, 15)
    }
}
