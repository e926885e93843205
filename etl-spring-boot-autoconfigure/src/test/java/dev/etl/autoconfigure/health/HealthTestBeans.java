package dev.etl.autoconfigure.health;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class HealthTestBeans {

    @Bean
    MemorySource memorySource() {
        return MemorySource.create();
    }

    @Bean
    CaptureSink captureSink() {
        return CaptureSink.create("capture", 1);
    }

    @Bean
    SinkDefinition captureSinkDefinition(CaptureSink sink) {
        return sink.definition();
    }

    @Bean
    ChainFactory chainFactory() {
        return (ctx) -> Chains.from(ctx, Deserializer.bytes()).sink(TestEncoders.bytes(), (value, meta, shards) -> 0);
    }

    static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
