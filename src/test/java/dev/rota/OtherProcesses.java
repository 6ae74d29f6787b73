package dev.rota;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time every other process of the machine has used so far, in nanoseconds: the machine's busy
 * time ({@code /proc/stat}: user, nice, system, irq and softirq of all CPUs) less this process's own
 * ({@code /proc/self/stat}: utime and stime of all its threads). A test that measures how a pool's
 * workers divide their CPUs reads it to tell a machine that other processes kept busy from a pool
 * that misbehaved: nothing the pool does raises it. 0 where either file is missing or unknown.
 */
final class OtherProcesses {
    /** Both files count in USER_HZ ticks, 100 a second on every Linux. */
    private static final long NANOS_PER_TICK = 10_000_000;
    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final Path SELF_STAT = Path.of("/proc/self/stat");

    private OtherProcesses() {}

    static long cpuNanosSoFar() {
        try {
            long busy = machineBusyTicks();
            long own = ownTicks();
            return busy < 0 || own < 0 ? 0 : Math.max(0, busy - own) * NANOS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return 0;                                    // not Linux, or a format this does not know: no figure
        }
    }

    private static long machineBusyTicks() throws IOException {
        for (String line : Files.readAllLines(PROC_STAT)) {
            if (line.startsWith("cpu ")) {
                String[] f = line.trim().split("\\s+");  // cpu user nice system idle iowait irq softirq steal ...
                return f.length > 7 ? Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3])
                        + Long.parseLong(f[6]) + Long.parseLong(f[7]) : -1;
            }
        }
        return -1;
    }

    private static long ownTicks() throws IOException {
        String stat = Files.readString(SELF_STAT);
        // pid (comm) state ppid ...: comm may hold spaces, so count fields after its closing parenthesis.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        return f.length > 12 ? Long.parseLong(f[11]) + Long.parseLong(f[12]) : -1; // utime, stime (fields 14, 15)
    }
}
