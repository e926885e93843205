package dev.etl.it.lifecycle;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.deser.Deserializer;
import dev.etl.error.SinkWriteException;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import dev.etl.test.memory.MemorySourceHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.avro.Schema;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A minimal Boot application with the starter's core auto-configuration, the memory source and a sink that writes nowhere, for
 * {@link ExitStatusIT}: {@code lifecycle-test.cause} picks how the run ends. It prints
 * {@link #WRITTEN} when its sink first writes and {@link #BLOCKED} when a write blocks, so the test
 * knows when to send a signal.
 */
@SpringBootConfiguration
// The core and the registry client only: starts in a fraction of the full set's time.
@ImportAutoConfiguration({EtlAutoConfiguration.class, SchemaRegistryAutoConfiguration.class})
public class ExitStatusApplication {

    static final String WRITTEN = "LIFECYCLE-TEST written";

    static final String BLOCKED = "LIFECYCLE-TEST blocked";

    /** How the run ends. */
    enum Cause {
        /** A record the deserializer rejects, under the FAIL policy: exit 1. */
        POISON(1, "is not a valid order"),
        /** The chain factory throws when a lane builds its chain: exit 1. */
        CHAIN_BUILD(1, "missing lookup table"),
        /** The sink's writer factory (its validation) throws: start fails, exit 1. */
        SINK_VALIDATION(1, "lifecycle.missing does not exist"),
        /** The schema registry does not answer (a closed port): exit 1. */
        REGISTRY_UNREACHABLE(1, "unavailable after retries"),
        /**
         * The starter's registry client points at a base path that is not the Confluent API (HTTP 404):
         * the startup check fails the context before any pipeline exists, exit 1 and no run report.
         */
        REGISTRY_WRONG_PATH(1, "does not answer the Confluent Schema Registry API"),
        /** One AvroDeserializer built outside the ChainFactory, used by two lanes: exit 1. */
        SHARED_DESERIALIZER(1, "one instance must serve one lane"),
        /** SIGTERM while a write blocks past the drain deadline: exit 2. */
        SIGTERM_DEADLINE(2, "abandoned"),
        /** SIGTERM after everything was written: exit 0. */
        SIGTERM_CLEAN(0, "state=STOPPED");

        final int expectedStatus;

        /** A fragment of the log that shows the run ended for this cause, not another. */
        final String logMarker;

        Cause(int expectedStatus, String logMarker) {
            this.expectedStatus = expectedStatus;
            this.logMarker = logMarker;
        }

        boolean signalled() {
            return this == SIGTERM_DEADLINE || this == SIGTERM_CLEAN;
        }

        /** The context fails before the pipeline is built: the process status is all there is. */
        boolean failsBeforeThePipeline() {
            return this == REGISTRY_WRONG_PATH;
        }

        int lanes() {
            return this == SHARED_DESERIALIZER ? 2 : 1;
        }
    }

    private static final Schema ORDER = new Schema.Parser().parse("""
            {"type": "record", "name": "Order", "namespace": "dev.etl.it.lifecycle", "fields": [
              {"name": "id", "type": "long"}]}""");

    public static void main(String[] args) {
        SpringApplication.run(ExitStatusApplication.class, args);
    }

    private static Cause cause(Environment environment) {
        return Cause.valueOf(environment.getRequiredProperty("lifecycle-test.cause"));
    }

    @Bean
    MemorySource memorySource(Environment environment) {
        MemorySource source = MemorySource.create();
        MemorySourceHandle handle = source.handle();
        Cause cause = cause(environment);
        if (cause == Cause.SHARED_DESERIALIZER) {
            handle.assign(0, 0);
            handle.assign(1, 1);
            for (int i = 0; i < 2_000; i++) {
                // Raw Avro of Order{id}: the zig-zag varint of a small long.
                handle.push(i % 2, null, new byte[] {(byte) ((i % 60) * 2)});
            }
            return source;
        }
        handle.assign(0, 0);
        if (cause == Cause.REGISTRY_UNREACHABLE) {
            // Confluent wire format: magic byte 0, schema id 1, then the (never read) body.
            handle.push(0, null, new byte[] {0, 0, 0, 0, 1, 2});
            return source;
        }
        for (int i = 0; i < 100; i++) {
            handle.push(0, null, ("order-" + i).getBytes(StandardCharsets.UTF_8));
        }
        if (cause == Cause.POISON) {
            handle.push(0, null, "bad-order".getBytes(StandardCharsets.UTF_8));
        }
        return source;
    }

    @Bean
    SinkDefinition sink(Environment environment) {
        Cause cause = cause(environment);
        return SinkDefinition.builder("nowhere", 1, (shard) -> {
                    if (cause == Cause.SINK_VALIDATION) {
                        throw new IllegalStateException(
                                "sink 'nowhere' shard " + shard + ": table lifecycle.missing does not exist");
                    }
                    return (batch) -> {
                        if (cause == Cause.SIGTERM_DEADLINE) {
                            System.out.println(BLOCKED);
                            try {
                                Thread.sleep(Long.MAX_VALUE);
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                                throw SinkWriteException.transientFailure("interrupted while blocked", ex);
                            }
                        }
                        System.out.println(WRITTEN);
                    };
                })
                .build();
    }

    @Bean
    ChainFactory chains(
            Environment environment,
            org.springframework.beans.factory.ObjectProvider<SchemaRegistryClient> starterRegistry) {
        Cause cause = cause(environment);
        if (cause == Cause.REGISTRY_WRONG_PATH) {
            SchemaRegistryClient registry = starterRegistry.getObject(); // the startup check throws here
            return (ctx) -> Chains.from(
                            ctx,
                            AvroDeserializer.generic(ORDER).confluent(registry).build())
                    .map("to-string", (order) -> order.get("id").toString())
                    .sink(TestEncoders.string(), (value, meta, shards) -> 0);
        }
        if (cause == Cause.SHARED_DESERIALIZER) {
            // The mistake the guide used to show: built once, outside the factory, shared by every lane.
            AvroDeserializer<org.apache.avro.generic.GenericRecord> shared =
                    AvroDeserializer.generic(ORDER).raw(ORDER).build();
            return (ctx) -> Chains.from(ctx, shared)
                    .map("to-string", (order) -> order.get("id").toString())
                    .sink(TestEncoders.string(), (value, meta, shards) -> 0);
        }
        if (cause == Cause.REGISTRY_UNREACHABLE) {
            String url = "http://127.0.0.1:" + environment.getRequiredProperty("lifecycle-test.closed-port");
            SchemaRegistryClient registry = SchemaRegistryClient.builder(url)
                    .connectTimeout(Duration.ofMillis(200))
                    .requestTimeout(Duration.ofMillis(200))
                    .callTimeout(Duration.ofSeconds(1))
                    .build();
            return (ctx) -> Chains.from(
                            ctx,
                            AvroDeserializer.generic(ORDER).confluent(registry).build())
                    .map("to-string", (order) -> order.get("id").toString())
                    .sink(TestEncoders.string(), (value, meta, shards) -> 0);
        }
        return (ctx) -> {
            if (cause == Cause.CHAIN_BUILD) {
                throw new IllegalStateException("chain of lane " + ctx + " cannot be built: missing lookup table");
            }
            return Chains.from(ctx, strings()).sink(TestEncoders.string(), (value, meta, shards) -> 0);
        };
    }

    private static Deserializer<String> strings() {
        return (key, value, meta, out) -> {
            String s = value.toUtf8String();
            if (s.startsWith("bad")) {
                throw new IllegalArgumentException("payload '" + s + "' is not a valid order");
            }
            out.collect(s);
        };
    }
}
