package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class SinkRuntimeIdleTest {
    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void idleIoThreadsParkInsteadOfSpinning() throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(threads.isThreadCpuTimeSupported());
        fx.start(fx.definition(4, 1000, Duration.ofHours(1)));
        List<Thread> io = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("etl-io-" + fx.pipeline + "-"))
                .toList();
        assertThat(io).hasSize(2);

        long before =
                io.stream().mapToLong(t -> threads.getThreadCpuTime(t.getId())).sum();
        Thread.sleep(500);
        long cpuMs = TimeUnit.NANOSECONDS.toMillis(
                io.stream().mapToLong(t -> threads.getThreadCpuTime(t.getId())).sum() - before);

        assertThat(cpuMs).as("CPU time of two idle io threads over 500 ms").isLessThan(150);
    }
}
