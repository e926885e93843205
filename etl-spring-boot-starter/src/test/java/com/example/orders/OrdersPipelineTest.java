package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.test.autoconfigure.EtlPipelineTest;
import dev.etl.test.capture.CaptureScript;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySourceHandle;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/** The slice as a user writes it: records in through the memory source, rows out of the capture sink. */
// tag::slice[]
@EtlPipelineTest(
        properties = {
            "etl.pipeline.name=orders",
            "etl.sink.clickhouse.shards[0].replicas=http://a:8123",
            "etl.sink.clickhouse.shards[1].replicas=http://b:8123"
        })
class OrdersPipelineTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Autowired
    private MemorySourceHandle source;

    @Autowired
    private CaptureScript sink;

    @Autowired
    private PipelineRuntime runtime;

    @Autowired
    private MeterRegistry meters;

    @Autowired
    private ApplicationContext context;

    @Test
    void writesNonZeroOrdersAndCommitsTheirOffsets() throws Exception {
        this.source.assign(0, 0, 1);
        for (int i = 0; i < 10; i++) {
            this.source.push(i % 2, null, bytes(i + "," + (i % 5 == 0 ? 0 : i * 10)));
        }
        assertThat(this.source.awaitCommitted(0, 5, WAIT)).isTrue();
        assertThat(this.source.awaitCommitted(1, 5, WAIT)).isTrue();

        List<String> rows = this.sink.writes().stream()
                .flatMap((write) -> TestEncoders.decodeStrings(write.bytes()).stream())
                .toList();
        assertThat(rows).containsExactlyInAnyOrder("1:10", "2:20", "3:30", "4:40", "6:60", "7:70", "8:80", "9:90");
        assertThat(this.sink.writes()).extracting(CaptureScript.Write::shard).allMatch((shard) -> shard < 2);
        assertThat(this.meters.find("etl.sink.rows").tag("pipeline", "orders").counters())
                .hasSize(2);
    }

    @Test
    void loadsOnlyThePipeline() {
        assertThat(this.context.getBeanNamesForType(OrdersChains.class)).hasSize(1);
        assertThat(this.context.getBeanNamesForType(UnrelatedConfiguration.class))
                .isEmpty();
        assertThat(this.runtime.config().name()).isEqualTo("orders");
        assertThat(this.runtime.config().checkpointInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(this.runtime.state()).isEqualTo(PipelineState.RUNNING);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
// end::slice[]
