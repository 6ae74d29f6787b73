package dev.rota.bench.groups;

import dev.rota.share.ClientNode;
import dev.rota.share.CurrencyGraph;
import dev.rota.share.LotteryScheduler;
import dev.rota.share.ShareLedger;
import dev.rota.share.ShareScheduler;
import dev.rota.share.StrideScheduler;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntPredicate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claim: Rota's scheduling decision costs at most 30 ns per task.
 *
 * <p>The pool decides per slice, not per task: a worker picks a group and runs up to a quantum of
 * its tasks, and at the slice's end charges the group and picks again, under the dispatcher's lock
 * ({@code dev.rota.core.Dispatcher.nextSlice}). The cost per task is therefore the cost per slice
 * divided by the tasks a slice runs. This benchmark measures the cost per slice, in ns per decision,
 * single-threaded and with no pool around it; {@code GroupOverheadBenchmark} and
 * {@code TierLatencyBenchmark} report the tasks per slice that the live pool achieves, and
 * docs/BENCHMARKS.md divides the one by the other.
 *
 * <p>Each operation is one decision on {@code clients} competing clients, all runnable, with ticket
 * values 300, 200, 100 repeated (three tiers, then copies of them). The CPU time charged is drawn from
 * a fixed table of 1024 values spread evenly over half a quantum to one and a half ({@value
 * #QUANTUM_NANOS} ns quantum), as slices that end early (their group ran dry) and late (a task
 * overran) would be; the same table is used in every fork and for both policies. Four levels:
 *
 * <ul>
 *   <li>{@link #pickAndCharge}: the bare policy, {@code scheduler.pick()} then
 *       {@code scheduler.charge(client, used, quantum)};</li>
 *   <li>{@link #pickEligibleAndCharge}: the same through {@code pick(eligible, random)}, the call the
 *       pool makes (a worker passes the predicate of the groups it may serve, here one reading a
 *       {@code boolean[]}, and its own generator for lottery draws);</li>
 *   <li>{@link #ledgerSlice}: the whole {@link ShareLedger} path of one slice:
 *       {@code ledger.pick(eligible, random)}, {@code sliceStarted(next)},
 *       {@code sliceEnded(next, used, quantum)} (the charge, and the activity bookkeeping of the
 *       currency graph);</li>
 *   <li>{@link #ledgerSliceLocked}: the ledger path inside an uncontended {@link ReentrantLock}, as
 *       {@code nextSlice} holds it. Not included: {@code nextSlice}'s own work around the ledger (its
 *       activation queue, the group's queue checks) and any contention for the lock.</li>
 *   <li>{@link #idleAndBack}: not a decision but what a group fed in bursts adds to them: the group
 *       that ran dry leaves the ledger ({@code setRunnable(client, false)}) and its next task brings
 *       it back ({@code setRunnable(client, true)}), the clients taking turns. Both steps go through
 *       the currency graph and the policy's join and leave; the pool takes them under its lock at a
 *       slice's end and at the next lock holder's activation pass.</li>
 * </ul>
 *
 * <p>Parameters: {@code policy} ({@code stride}: {@link StrideScheduler}, {@code lottery}:
 * {@link LotteryScheduler} with a fixed seed); {@code clients} (3, 16, 256).
 *
 * <p>Run from the repository root: {@code jmh/run.sh DecisionCost} (see docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class DecisionCostBenchmark {
    static final long QUANTUM_NANOS = 1_000_000;
    static final long[] TICKETS = {300, 200, 100};
    private static final int USED_MASK = 1023;

    @Param({"stride", "lottery"})
    public String policy;

    @Param({"3", "16", "256"})
    public int clients;

    private ShareScheduler scheduler;
    private ShareLedger ledger;
    private ClientNode[] byId;
    /** The ledger's clients in the order they were made. */
    private ClientNode[] byClientIndex;
    private boolean[] allowed;
    private IntPredicate eligible;
    private SplittableRandom random;
    private final ReentrantLock lock = new ReentrantLock();
    private final long[] used = new long[USED_MASK + 1];
    private int next;
    private int nextIdle;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom table = new SplittableRandom(42);
        for (int i = 0; i < used.length; i++) {
            used[i] = QUANTUM_NANOS / 2 + table.nextLong(QUANTUM_NANOS);
        }
        random = new SplittableRandom(7);
        scheduler = newScheduler();
        for (int c = 0; c < clients; c++) {
            scheduler.setValue(c, TICKETS[c % TICKETS.length]);
        }
        ledger = new ShareLedger(new CurrencyGraph(), newScheduler());
        byId = new ClientNode[clients];
        byClientIndex = new ClientNode[clients];
        for (int c = 0; c < clients; c++) {
            ClientNode node = ledger.newClient("client-" + c, ledger.graph().base(), TICKETS[c % TICKETS.length]);
            ledger.setRunnable(node, true);
            byClientIndex[c] = node;
            if (node.id() >= byId.length) {
                byId = Arrays.copyOf(byId, node.id() + 1);
            }
            byId[node.id()] = node;
        }
        allowed = new boolean[byId.length];
        Arrays.fill(allowed, true);
        boolean[] a = allowed;
        eligible = id -> a[id];
    }

    private ShareScheduler newScheduler() {
        return switch (policy) {
            case "stride" -> new StrideScheduler();
            case "lottery" -> new LotteryScheduler(new SplittableRandom(1));
            default -> throw new IllegalArgumentException("policy must be stride or lottery: " + policy);
        };
    }

    private long nextUsed() {
        return used[next++ & USED_MASK];
    }

    @Benchmark
    public int pickAndCharge() {
        int client = scheduler.pick();
        scheduler.charge(client, nextUsed(), QUANTUM_NANOS);
        return client;
    }

    @Benchmark
    public int pickEligibleAndCharge() {
        int client = scheduler.pick(eligible, random);
        scheduler.charge(client, nextUsed(), QUANTUM_NANOS);
        return client;
    }

    @Benchmark
    public int ledgerSlice() {
        int id = ledger.pick(eligible, random);
        ClientNode client = byId[id];
        ledger.sliceStarted(client);
        ledger.sliceEnded(client, nextUsed(), QUANTUM_NANOS);
        return id;
    }

    @Benchmark
    public int ledgerSliceLocked() {
        lock.lock();
        try {
            int id = ledger.pick(eligible, random);
            ClientNode client = byId[id];
            ledger.sliceStarted(client);
            ledger.sliceEnded(client, nextUsed(), QUANTUM_NANOS);
            return id;
        } finally {
            lock.unlock();
        }
    }

    @Benchmark
    public int idleAndBack() {
        int c = nextIdle;
        nextIdle = c + 1 == clients ? 0 : c + 1;
        ClientNode client = byClientIndex[c];
        ledger.setRunnable(client, false);
        ledger.setRunnable(client, true);
        return c;
    }
}
