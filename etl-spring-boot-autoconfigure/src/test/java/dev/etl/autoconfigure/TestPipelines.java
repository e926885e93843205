package dev.etl.autoconfigure;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.Router;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Beans and helpers shared by the auto-configuration tests. */
final class TestPipelines {

    static final Duration WAIT = Duration.ofSeconds(20);

    /** Fast timings; never System.exit from a test JVM, leave its signals alone. */
    static final String[] FAST = {
        "etl.checkpoint.interval=50ms",
        "etl.pipeline.poll-timeout=20ms",
        "etl.checkpoint.drain-timeout=5s",
        "etl.pipeline.exit-on-failure=false",
        "etl.pipeline.handle-signals=false"
    };

    private TestPipelines() {}

    /** UTF-8 values through to one String column, shard = partition % shards. */
    static ChainFactory strings() {
        Router<String> byPartition = (value, meta, shards) -> meta.partition() % shards;
        Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
        return (ctx) -> Chains.from(ctx, utf8).sink(TestEncoders.string(), byPartition);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }

    @Configuration(proxyBeanMethods = false)
    static class SourceAndSink {

        @Bean
        MemorySource memorySource() {
            return MemorySource.create();
        }

        @Bean
        CaptureSink captureSink() {
            return CaptureSink.create("capture", 2);
        }

        @Bean
        dev.etl.sink.SinkDefinition captureSinkDefinition(CaptureSink sink) {
            return sink.definition();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Chain {

        @Bean
        ChainFactory chainFactory() {
            return strings();
        }
    }
}
