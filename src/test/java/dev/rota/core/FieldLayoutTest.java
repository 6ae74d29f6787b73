package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cache-line layout that the submission path relies on, read from HotSpot's field offsets:
 * fields that every offer reads share no line with fields that workers, the dispatcher or other
 * submitters write, nor with the objects next to theirs in memory.
 *
 * <p>An object starts on an 8-byte boundary, anywhere within a 64-byte line, so two fields may share
 * a line when some line that starts at a multiple of 8 from the object's start holds bytes of both;
 * the object before may reach up to offset 55, the object after down to 63 bytes before this one's
 * end. The offsets come from {@code jdk.internal.misc.Unsafe}, which the build exports to the
 * tests' JVM and which, unlike {@code sun.misc.Unsafe}, prints no warning; it is called reflectively,
 * since {@code javac --release} compiles against the exported API only.
 */
class FieldLayoutTest {
    private static final Object UNSAFE;
    private static final Method FIELD_OFFSET;
    private static final int REFERENCE_SIZE;
    private static final int LINE = 64;
    private static final int ALIGNMENT = 8;

    static {
        try {
            Class<?> type = Class.forName("jdk.internal.misc.Unsafe");
            UNSAFE = type.getMethod("getUnsafe").invoke(null);
            FIELD_OFFSET = type.getMethod("objectFieldOffset", Field.class);
            // The scale of an Object[]: 4 bytes per reference with compressed oops, else 8.
            REFERENCE_SIZE = (int) type.getMethod("arrayIndexScale", Class.class).invoke(UNSAFE, Object[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Test
    void groupRoutingFieldsShareNoLineWithWhatIsWritten() {
        List<Slot> routing = slots(Group.class, "runState", "stopDrained", "engine", "lanes", "admission", "mask");
        List<Slot> written = slots(Group.class, "activation", "runnable", "cpuTimeNanos", "slices", "longestSliceNanos",
                "spareTurns", "terminationHolds");
        assertApart(routing, written);
        List<Slot> activation = slots(Group.class, "activation", "runnable");
        List<Slot> sliceFigures = slots(Group.class, "cpuTimeNanos", "slices", "longestSliceNanos");
        assertApart(activation, sliceFigures);
        assertClearOfNeighbours(Group.class, routing);
        assertClearOfNeighbours(Group.class, activation);
        assertClearOfNeighbours(Group.class, sliceFigures);
    }

    @Test
    void laneQueuesShareNoLineWithItsCounters() {
        List<Slot> routing = slots(Lane.class, "group", "worker", "inbox", "deque");
        List<Slot> counters = slots(Lane.class, "completed", "clockInterval");
        assertApart(routing, counters);
        assertClearOfNeighbours(Lane.class, routing);
        assertClearOfNeighbours(Lane.class, counters);
    }

    @Test
    void inboxQueueSharesNoLineWithTheConsumerToken() {
        List<Slot> queue = slots(Inbox.class, "queue");
        List<Slot> token = slots(Inbox.class, "token");
        assertApart(queue, token);
        assertClearOfNeighbours(Inbox.class, queue);
        assertClearOfNeighbours(Inbox.class, token);
    }

    @Test
    void admissionStripeKeepsSubmittersAndConsumersApart() {
        List<Slot> submitters = slots(AdmissionStripe.class, "admitted", "limit", "lastOutsideSubmitter");
        List<Slot> taken = slots(AdmissionStripe.class, "taken");
        List<Slot> ownerTaken = slots(AdmissionStripe.class, "ownerTaken");
        assertApart(submitters, taken);
        assertApart(submitters, ownerTaken);
        assertApart(taken, ownerTaken);
        assertClearOfNeighbours(AdmissionStripe.class, submitters);
        assertClearOfNeighbours(AdmissionStripe.class, taken);
        assertClearOfNeighbours(AdmissionStripe.class, ownerTaken);
    }

    @Test
    void taskDequeKeepsTopAndBottomApart() {
        List<Slot> top = slots(TaskDeque.class, "top");
        List<Slot> bottom = slots(TaskDeque.class, "bottom");
        assertApart(top, bottom);
        assertClearOfNeighbours(TaskDeque.class, top);
        assertClearOfNeighbours(TaskDeque.class, bottom);
    }

    @Test
    void theCheckSeesFieldsOnOneLine() {
        // The check itself: neighbouring fields share a line, and so do the header's line and a field
        // placed right after it.
        Slot a = new Slot("a", 72, 8);
        Slot b = new Slot("b", 80, 8);
        Slot farEnough = new Slot("c", 136, 8);
        assertTrue(mayShareLine(a, b));
        assertTrue(mayShareLine(a, new Slot("d", 128, 8)));  // a line from offset 72 holds both
        assertFalse(mayShareLine(a, farEnough));
        assertTrue(reachableFromPrevious(new Slot("e", 48, 8)));
        assertFalse(reachableFromPrevious(new Slot("f", 56, 4)));
    }

    /** One field: its name, offset and size in bytes. */
    private record Slot(String name, long offset, int size) {
        long end() {
            return offset + size;
        }

        @Override
        public String toString() {
            return name + "@" + offset + "+" + size;
        }
    }

    private static void assertApart(List<Slot> these, List<Slot> those) {
        for (Slot a : these) {
            for (Slot b : those) {
                assertFalse(mayShareLine(a, b), a + " and " + b + " may share a cache line");
            }
        }
    }

    /** No line that {@code slots} lie on may hold a byte of the object before or after this one. */
    private static void assertClearOfNeighbours(Class<?> type, List<Slot> slots) {
        long end = objectEnd(type);
        for (Slot s : slots) {
            assertFalse(reachableFromPrevious(s), s + " may share a line with the object before it");
            assertFalse(alignedDown(s.offset()) + LINE > end,
                    s + " may share a line with the object after it (the object ends at " + end + ")");
        }
    }

    /** True when a line starting at some multiple of 8 from the object's start holds bytes of both. */
    private static boolean mayShareLine(Slot a, Slot b) {
        Slot low = a.offset() <= b.offset() ? a : b;
        Slot high = low == a ? b : a;
        return high.end() <= alignedDown(low.offset()) + LINE;
    }

    /** True when a line holding the last byte before the object also holds a byte of {@code s}. */
    private static boolean reachableFromPrevious(Slot s) {
        return s.offset() < LINE - ALIGNMENT;
    }

    private static long alignedDown(long offset) {
        return offset / ALIGNMENT * ALIGNMENT;
    }

    /** The end of the last field of {@code type}, rounded up to the object alignment. */
    private static long objectEnd(Class<?> type) {
        long end = 0;
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    end = Math.max(end, offset(f) + size(f.getType()));
                }
            }
        }
        return (end + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    private static List<Slot> slots(Class<?> type, String... names) {
        return Arrays.stream(names).map(name -> slot(type, name)).toList();
    }

    private static Slot slot(Class<?> type, String name) {
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getName().equals(name) && !Modifier.isStatic(f.getModifiers())) {
                    return new Slot(name, offset(f), size(f.getType()));
                }
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + " has no field " + name);
    }

    private static int size(Class<?> type) {
        if (type == long.class || type == double.class) {
            return 8;
        }
        if (type == int.class || type == float.class) {
            return 4;
        }
        if (type == short.class || type == char.class) {
            return 2;
        }
        if (type == byte.class || type == boolean.class) {
            return 1;
        }
        return REFERENCE_SIZE;
    }

    private static long offset(Field f) {
        try {
            return (long) FIELD_OFFSET.invoke(UNSAFE, f);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
