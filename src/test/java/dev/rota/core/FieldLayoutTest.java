package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The cache-line layout that the submission path relies on, read from HotSpot's field offsets:
 * fields that every offer reads share no line with fields that workers, the dispatcher or other
 * submitters write, nor with the objects next to theirs in memory.
 *
 * <p>An object starts on an 8-byte boundary, anywhere within a 64-byte line, so two fields may share
 * a line when some line that starts at a multiple of 8 from the object's start holds bytes of both;
 * the object before may reach up to offset 55, the object after down to 63 bytes before this one's
 * end. The offsets come from {@code jdk.internal.misc.Unsafe}, which the build exports to this
 * test's JVM only (Surefire's execution {@code field-layout}; the other tests run without the
 * export, as a user's code does) and which, unlike {@code sun.misc.Unsafe}, prints no warning; it is
 * called reflectively, since {@code javac --release} compiles against the exported API only.
 */
@DisabledIfSystemProperty(named = "rota.fieldLayoutTest", matches = "elsewhere",
        disabledReason = "runs in Surefire's execution field-layout, whose JVM has the export it needs")
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
        List<String> routing = List.of("runState", "stopDrained", "engine", "lanes", "admission", "mask");
        assertOnLinesOfTheirOwn(Group.class, routing, List.of("activation", "runnable"),
                List.of("cpuTimeNanos", "slices", "longestSliceNanos"));
        // Written under the dispatcher's lock at a spare's turn; near the object's end, among fields read seldom.
        assertApart(slots(Group.class, routing), slots(Group.class, List.of("spareTurns", "terminationHolds")));
    }

    @Test
    void engineFieldsReadPerTaskShareNoLineWithItsNeighbours() {
        // Read by every worker at every task and by every offer; written only at parks and stops.
        assertOnLinesOfTheirOwn(Engine.class, List.of("runState", "parkedCount", "dispatcher", "submitterLanes", "workers"));
    }

    @Test
    void laneQueuesShareNoLineWithItsCounters() {
        assertOnLinesOfTheirOwn(Lane.class, List.of("group", "worker", "inbox", "deque"),
                List.of("completed", "clockInterval"));
    }

    @Test
    void inboxQueueSharesNoLineWithTheConsumerToken() {
        assertOnLinesOfTheirOwn(Inbox.class, List.of("queue"), List.of("token"));
    }

    @Test
    void admissionStripeKeepsSubmittersAndConsumersApart() {
        assertOnLinesOfTheirOwn(AdmissionStripe.class, List.of("admitted", "limit", "lastOutsideSubmitter"),
                List.of("taken"), List.of("ownerTaken"));
    }

    @Test
    void taskDequeKeepsTopAndBottomApart() {
        assertOnLinesOfTheirOwn(TaskDeque.class, List.of("top"), List.of("bottom"));
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

    /**
     * Each of {@code groups}, fields of {@code type} that may share lines among themselves, lies on
     * lines that hold no field of another group and no byte of the objects before and after.
     */
    @SafeVarargs
    private static void assertOnLinesOfTheirOwn(Class<?> type, List<String>... groups) {
        for (int i = 0; i < groups.length; i++) {
            List<Slot> these = slots(type, groups[i]);
            assertClearOfNeighbours(type, these);
            for (int j = i + 1; j < groups.length; j++) {
                assertApart(these, slots(type, groups[j]));
            }
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
        for (Field f : instanceFields(type)) {
            end = Math.max(end, offset(f) + size(f.getType()));
        }
        return (end + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    private static List<Slot> slots(Class<?> type, List<String> names) {
        return names.stream().map(name -> slot(type, name)).toList();
    }

    private static Slot slot(Class<?> type, String name) {
        for (Field f : instanceFields(type)) {
            if (f.getName().equals(name)) {
                return new Slot(name, offset(f), size(f.getType()));
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + " has no field " + name);
    }

    /** The instance fields of {@code type} and its superclasses, the type's own first. */
    private static List<Field> instanceFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    fields.add(f);
                }
            }
        }
        return fields;
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
