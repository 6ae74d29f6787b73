package dev.rota.affinity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Optional;

/**
 * An {@link Affinity} that pins nothing and says why. It still reports the allowed CPUs where the
 * platform shows them without native code: from {@code Cpus_allowed_list} in
 * {@code /proc/thread-self/status} (or {@code /proc/self/status}), else as CPUs
 * {@code 0..availableProcessors-1}.
 */
public final class NoAffinity implements Affinity {
    private static final String ALLOWED_LIST_KEY = "Cpus_allowed_list:";
    private static final Path THREAD_STATUS = Path.of("/proc/thread-self/status");
    private static final Path PROCESS_STATUS = Path.of("/proc/self/status");

    private final String reason;
    private final Path[] statusFiles;

    /** @param reason why pinning is unavailable, shown to the user; not blank */
    public NoAffinity(String reason) {
        this(reason, THREAD_STATUS, PROCESS_STATUS);
    }

    NoAffinity(String reason, Path... statusFiles) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a NoAffinity needs a reason, got '" + reason + "'");
        }
        this.reason = reason;
        this.statusFiles = statusFiles.clone();
    }

    @Override public boolean canPin() { return false; }
    @Override public String unavailableReason() { return reason; }

    @Override
    public BitSet allowedCpus() {
        for (Path status : statusFiles) {
            Optional<BitSet> listed = readAllowedList(status);
            if (listed.isPresent()) {
                return listed.get();
            }
        }
        BitSet all = new BitSet();
        all.set(0, Runtime.getRuntime().availableProcessors());
        return all;
    }

    /** From {@code Cpus_allowed_list} in {@code /proc/self/status} (the first thread's), else as {@link #allowedCpus()}. */
    @Override
    public BitSet processCpus() {
        return readAllowedList(PROCESS_STATUS).orElseGet(this::allowedCpus);
    }

    @Override public int currentCpu() { return -1; }

    @Override public PinResult pinCurrentThread(int cpu) { return PinResult.failure(cpu, reason); }

    /**
     * The {@code Cpus_allowed_list} of a {@code /proc} status file; empty when absent or garbled.
     * Read as ISO-8859-1, which decodes any byte: the {@code Name:} line holds the thread's name as
     * raw bytes cut to 15, often mid-character for a name outside ASCII, where UTF-8 would refuse
     * the whole file; the line read here is ASCII.
     */
    static Optional<BitSet> readAllowedList(Path status) {
        try {
            return Files.readAllLines(status, StandardCharsets.ISO_8859_1).stream()
                    .filter(line -> line.startsWith(ALLOWED_LIST_KEY))
                    .findFirst()
                    .map(line -> CpuList.parse(line.substring(ALLOWED_LIST_KEY.length())))
                    .filter(cpus -> !cpus.isEmpty());
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }
}
