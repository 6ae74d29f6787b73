package dev.rota;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Run in a child JVM by {@link IdlePoolTest}: starts a default pool, runs a burst of tasks, lets the
 * pool go idle, then prints the process CPU time used over two idle seconds as
 * {@code idle-cpu-fraction=<fraction of one core>}.
 */
public final class IdlePoolProbe {
    private IdlePoolProbe() {}

    public static void main(String[] args) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (RotaPool pool = RotaPool.create()) {
            LongAdder ran = new LongAdder();
            for (int i = 0; i < 200_000; i++) {
                pool.execute(ran::increment);
            }
            while (ran.sum() < 200_000) {
                Thread.onSpinWait();
            }
            Thread.sleep(1_000);                          // the workers back off and park
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            Thread.sleep(2_000);
            long cpu = os.getProcessCpuTime() - cpu0;
            long wall = System.nanoTime() - wall0;
            System.out.printf("idle-cpu-fraction=%.4f%n", (double) cpu / wall);
            pool.shutdown();
            if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new AssertionError("pool did not terminate");
            }
        }
    }
}
