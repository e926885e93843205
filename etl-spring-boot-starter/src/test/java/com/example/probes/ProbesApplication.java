package com.example.probes;

import dev.etl.autoconfigure.DeadLetterSinkDefinition;
import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A full Boot application (web, actuator, Prometheus) with the memory source, a capture sink and a
 * capture dead-letter sink.
 */
@SpringBootApplication
public class ProbesApplication {

    @Bean
    MemorySource memorySource() {
        return MemorySource.create();
    }

    @Bean
    CaptureSink captureSink() {
        return CaptureSink.create("clickhouse", 2);
    }

    @Bean
    SinkDefinition clickhouse(CaptureSink sink) {
        return sink.definition();
    }

    /** A dead-letter sink, so the DEAD_LETTER stage below (and its meters) exist. */
    @Bean
    DeadLetterSinkDefinition deadLetter() {
        return new DeadLetterSinkDefinition(CaptureSink.create("dead-letter", 1).definition());
    }

    @Bean
    ChainFactory passThrough() {
        return (ctx) -> Chains.from(ctx, Deserializer.bytes(), ErrorPolicy.DEAD_LETTER)
                .sink(TestEncoders.bytes(), KeyHashRouter.byRecordKey());
    }
}
