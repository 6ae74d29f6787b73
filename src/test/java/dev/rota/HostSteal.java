package dev.rota;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The CPU time the host of a virtual machine has taken from all of its CPUs so far (the steal
 * column of Linux's {@code /proc/stat}), in nanoseconds; 0 where there is no such file. A guest
 * kernel may count stolen time as the running thread's own CPU time, so a test that compares the
 * wall clock with its threads' CPU time cannot see it: it reads it here.
 */
final class HostSteal {
    /** {@code /proc/stat} (and {@code /proc/self/stat}) count in USER_HZ ticks, 100 a second on every Linux. */
    static final long NANOS_PER_TICK = 10_000_000;
    static final Path PROC_STAT = Path.of("/proc/stat");

    private HostSteal() {}

    static long nanosSoFar() {
        try {
            return nanosIn(Files.readAllLines(PROC_STAT));
        } catch (IOException e) {
            return 0;                                    // not Linux: no figure
        }
    }

    /** The steal figure of {@code /proc/stat}'s lines, in nanoseconds; 0 for a format this does not know. */
    static long nanosIn(List<String> procStat) {
        for (String line : procStat) {
            if (line.startsWith("cpu ")) {
                String[] fields = line.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
                try {
                    return fields.length > 8 ? Long.parseLong(fields[8]) * NANOS_PER_TICK : 0;
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
