package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static dev.etl.test.pipeline.PipelineFixture.build;
import static dev.etl.test.pipeline.PipelineFixture.eventually;
import static dev.etl.test.pipeline.PipelineFixture.fastConfig;
import static dev.etl.test.pipeline.PipelineFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Revoke drains and commits before completing; the next owner resumes there; lost commits nothing. */
class RebalanceTest {
    private final MemorySource source = MemorySource.create(50);
    private final MemorySourceHandle handle = source.handle();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private PipelineRuntime runtime;

    @AfterEach
    void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.shutdown();
            runtime.awaitTermination(WAIT);
        }
    }

    @Test
    void revokeDrainsAndCommitsSoTheNextOwnerResumesWithoutLossOrDuplicates() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().latency(0, Duration.ofMillis(20));
        runtime = build(
                fastConfig("revoke")
                        .lanes(2)
                        .checkpointInterval(Duration.ofHours(1))
                        .build(),
                source,
                sink,
                PipelineFixture.passThrough(),
                registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 500; i++) {
            handle.push(0, null, utf8("a" + i));
        }
        assertThat(eventually(() -> runtime.recordsIn() == 500, WAIT)).isTrue();
        handle.revoke(0);
        // The commit interval is an hour: only the revoke's synchronous commit can move this.
        assertThat(handle.awaitCommitted(0, 500, WAIT)).isTrue();
        handle.assign(1, 0);
        for (int i = 0; i < 500; i++) {
            handle.push(0, null, utf8("b" + i));
        }
        assertThat(sink.script().awaitRows(1_000, WAIT)).isTrue();
        List<String> rows = sink.script().writes().stream()
                .flatMap(w -> TestEncoders.decodeStrings(w.bytes()).stream())
                .collect(Collectors.toList());
        assertThat(rows).hasSize(1_000).doesNotHaveDuplicates();
    }

    @Test
    void lostPartitionIsDroppedWithoutCommittingAndItsLateAcksAreStale() throws Exception {
        CaptureSink sink = CaptureSink.create("capture", 1);
        sink.script().block(0);
        runtime = build(fastConfig("lost").build(), source, sink, PipelineFixture.passThrough(), registry);
        runtime.start();
        handle.assign(0, 0);
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, utf8("v" + i));
        }
        assertThat(eventually(() -> runtime.recordsIn() == 100, WAIT)).isTrue();
        handle.lose(0);
        assertThat(eventually(
                        () -> registry.get("etl.source.rebalance.events")
                                        .tag("event", "lost")
                                        .counter()
                                        .count()
                                == 1.0,
                        WAIT))
                .isTrue();
        sink.script().release(0); // the late writes complete and their acks arrive after the loss
        assertThat(sink.script().awaitRows(100, WAIT)).isTrue();
        assertThat(eventually(
                        () -> registry.get("etl.checkpoint.stale.acks")
                                        .counter()
                                        .count()
                                > 0,
                        WAIT))
                .isTrue();
        Thread.sleep(200);
        assertThat(handle.lastCommitted(0)).isEqualTo(-1);
    }
}
