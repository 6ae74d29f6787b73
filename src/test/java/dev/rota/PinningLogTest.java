package dev.rota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rota.affinity.Affinity;
import dev.rota.affinity.CpuList;
import dev.rota.affinity.NoAffinity;
import dev.rota.affinity.PinResult;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a pool that cannot pin says, and at which level: nothing printed by default where pinning is unavailable. */
class PinningLogTest {
    /** Held, since java.util.logging keeps its loggers only weakly. */
    private final Logger rota = Logger.getLogger("dev.rota");
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Level previousLevel;

    @BeforeEach
    void capture() {
        previousLevel = rota.getLevel();
        rota.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        rota.addHandler(capture);
    }

    @AfterEach
    void release() {
        rota.removeHandler(capture);
        rota.setLevel(previousLevel);
    }

    /** A platform without pinning, as on macOS or Windows; a reason of its own, since each is said once per JVM. */
    private static NoAffinity platformWithoutPinning() {
        return new NoAffinity("CPU pinning is supported on Linux only; this is TestOS " + UUID.randomUUID());
    }

    private static RotaPool.Builder onPlatformWithoutPinning() {
        return RotaPool.builder().workers(2).platform(platformWithoutPinning(), CpuTopology.current());
    }

    @Test
    void aPlatformWithoutPinningPrintsNothingByDefault() {
        try (RotaPool pool = onPlatformWithoutPinning().build()) {
            assertFalse(pool.topology().pinned());
        }
        List<Level> printed = records.stream().map(LogRecord::getLevel)
                .filter(level -> level.intValue() >= Level.INFO.intValue()).toList();
        assertEquals(List.of(), printed, "a default pool on a platform without pinning printed " + printed);
    }

    @Test
    void pinningAskedForOnAPlatformWithoutItIsSaidOnceAtInfo() {
        try (RotaPool pool = onPlatformWithoutPinning().pinning(true).build()) {
            assertFalse(pool.topology().pinned());
        }
        List<Level> said = records.stream().map(LogRecord::getLevel).toList();
        assertEquals(List.of(Level.INFO), said);
        assertTrue(records.getFirst().getParameters()[3].toString().contains("TestOS"));
    }

    @Test
    void aKernelThatRefusesACpuIsAWarning() {
        String refusal = "sched_setaffinity refused: EINVAL " + UUID.randomUUID();
        Affinity refusing = new Affinity() {
            @Override public boolean canPin() { return true; }
            @Override public String unavailableReason() { return ""; }
            @Override public BitSet allowedCpus() { return CpuTopology.current().cpuIds(); }
            @Override public int currentCpu() { return -1; }
            @Override public PinResult pinCurrentThread(int cpu) { return PinResult.failure(cpu, refusal); }
        };
        try (RotaPool pool = RotaPool.builder().workers(2).platform(refusing, CpuTopology.current()).build()) {
            assertFalse(pool.topology().pinned());
        }
        assertEquals(List.of(Level.WARNING), records.stream().map(LogRecord::getLevel).toList());
    }

    @Test
    void aKernelThatRefusesEveryCpuIsOneWarningThoughEachRefusalNamesItsCpu() {
        String cpuset = UUID.randomUUID().toString();
        Affinity refusing = new Affinity() {
            @Override public boolean canPin() { return true; }
            @Override public String unavailableReason() { return ""; }
            @Override public BitSet allowedCpus() { return CpuTopology.current().cpuIds(); }
            @Override public int currentCpu() { return -1; }
            @Override public PinResult pinCurrentThread(int cpu) {
                // As LinuxAffinity words it: the CPU is named, so each worker's note differs.
                return PinResult.failure(cpu, "sched_setaffinity to CPU " + cpu + " failed with errno 22 (EINVAL) "
                        + cpuset);
            }
        };
        CpuTopology twoCpus = CpuTopology.flat(CpuList.parse("0-1"));

        try (RotaPool pool = RotaPool.builder().workers(4).platform(refusing, twoCpus).build()) {
            assertFalse(pool.topology().pinned());
        }
        try (RotaPool again = RotaPool.builder().workers(4).platform(refusing, twoCpus).build()) {
            assertFalse(again.topology().pinned());
        }

        assertEquals(List.of(Level.WARNING), records.stream().map(LogRecord::getLevel).toList());
    }

    /** A kernel that refuses every pin, with a cause of its own (each is said once per JVM), worded as LinuxAffinity words it. */
    private static Affinity refusingEveryPin(BitSet process) {
        String cause = UUID.randomUUID().toString();
        return new Affinity() {
            @Override public boolean canPin() { return true; }
            @Override public String unavailableReason() { return ""; }
            @Override public BitSet allowedCpus() { return (BitSet) process.clone(); }
            @Override public BitSet processCpus() { return (BitSet) process.clone(); }
            @Override public int currentCpu() { return -1; }
            @Override public PinResult pinCurrentThread(int cpu) {
                return PinResult.failure(cpu, "sched_setaffinity to CPU " + cpu + " failed with errno 1 (EPERM) "
                        + "(this thread may use CPUs " + CpuList.format(process) + ") " + cause);
            }
        };
    }

    @Test
    void oneCauseIsOneWarningWhicheverCpusLaterPoolsUse() {
        BitSet process = CpuList.parse("0-3");
        Affinity refusing = refusingEveryPin(process);
        CpuTopology machine = CpuTopology.flat(process);
        try (RotaPool first = RotaPool.builder().cpus(0, 1).platform(refusing, machine).build()) {
            assertFalse(first.topology().pinned());
        }
        try (RotaPool second = RotaPool.builder().cpus(2, 3).platform(refusing, machine).build()) {
            assertFalse(second.topology().pinned());
        }
        assertEquals(List.of(Level.WARNING), records.stream().map(LogRecord::getLevel).toList(),
                "one cause, but logged: " + records.stream().map(r -> new SimpleFormatter().formatMessage(r)).toList());
    }

    @Test
    void cpuNumbersInTheWarningAreNotGroupedByLocale() {
        Locale previous = Locale.getDefault(Locale.Category.FORMAT);
        Locale.setDefault(Locale.Category.FORMAT, Locale.US);
        try {
            BitSet process = new BitSet();
            process.set(1024);
            try (RotaPool pool = RotaPool.builder().cpus(1024)
                    .platform(refusingEveryPin(process), CpuTopology.flat(process)).build()) {
                assertFalse(pool.topology().pinned());
            }
            assertEquals(1, records.size());
            String said = new SimpleFormatter().formatMessage(records.getFirst());
            assertTrue(said.contains("pinned to CPU 1024:"), said);
        } finally {
            Locale.setDefault(Locale.Category.FORMAT, previous);
        }
    }
}
