package dev.rota.affinity;

import java.util.BitSet;

/**
 * The kernel's CPU list syntax, as in {@code /sys/devices/system/cpu/online} or
 * {@code Cpus_allowed_list}: comma-separated CPU numbers and inclusive ranges, such as
 * {@code 0-3,8,10-11}. An empty (or all-whitespace) text is the empty set.
 *
 * <p>Surrounding whitespace, including the trailing newline of a sysfs file, and blanks around
 * each element are ignored. Anything else that is not a number or a range {@code a-b} with
 * {@code a <= b} is rejected with an {@link IllegalArgumentException} that quotes the text.
 */
public final class CpuList {

    /**
     * The highest CPU number accepted. Linux builds for at most 8192 CPUs today; the margin keeps
     * a corrupt list from allocating a huge {@link BitSet}.
     */
    public static final int MAX_CPU = (1 << 20) - 1;

    private CpuList() {}

    /** The CPUs named by {@code text}. */
    public static BitSet parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("CPU list is null");
        }
        BitSet cpus = new BitSet();
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            return cpus;
        }
        for (String element : trimmed.split(",", -1)) {
            String item = element.strip();
            int dash = item.indexOf('-');
            if (dash < 0) {
                cpus.set(cpuNumber(item, text));
                continue;
            }
            int first = cpuNumber(item.substring(0, dash).strip(), text);
            int last = cpuNumber(item.substring(dash + 1).strip(), text);
            if (first > last) {
                throw malformed(text, "range '" + item + "' runs backwards");
            }
            cpus.set(first, last + 1);
        }
        return cpus;
    }

    /** {@code cpus} in the kernel's syntax, with ranges for runs of two or more: {@code 0-3,8}. */
    public static String format(BitSet cpus) {
        StringBuilder out = new StringBuilder();
        int first = cpus.nextSetBit(0);
        while (first >= 0) {
            int end = cpus.nextClearBit(first); // exclusive
            if (!out.isEmpty()) {
                out.append(',');
            }
            out.append(first);
            if (end - 1 > first) {
                out.append('-').append(end - 1);
            }
            first = cpus.nextSetBit(end);
        }
        return out.toString();
    }

    private static int cpuNumber(String digits, String text) {
        if (digits.isEmpty()) {
            throw malformed(text, "an element is empty");
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed(text, "'" + digits + "' is not a CPU number");
            }
        }
        // At most 7 digits fit under MAX_CPU; more would overflow or exceed it.
        if (digits.length() > 7 || Integer.parseInt(digits) > MAX_CPU) {
            throw malformed(text, "CPU " + digits + " exceeds the highest supported CPU " + MAX_CPU);
        }
        return Integer.parseInt(digits);
    }

    private static IllegalArgumentException malformed(String text, String why) {
        return new IllegalArgumentException("malformed CPU list '" + text.strip() + "': " + why);
    }
}
