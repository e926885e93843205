package com.example.datagen;

import dev.etl.datagen.RecordGenerator;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An application with a chain, a generator and a sink that counts rows, no Kafka and no ClickHouse:
 * started as a child JVM by {@link DatagenExitTest} with {@code etl.source.datagen.*} on its command line.
 * Prints the rows it wrote when its context closes.
 */
@SpringBootApplication
public class DatagenDemoApplication {

    static final AtomicLong ROWS = new AtomicLong();

    public static void main(String[] args) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("rows written: " + ROWS.get())));
        SpringApplication.run(DatagenDemoApplication.class, args);
    }

    @Bean
    RecordGenerator lines() {
        return (partition, sequence, random, out) -> out.value().writeLongBE(out.id());
    }

    @Bean
    ChainFactory chain() {
        return (ctx) ->
                Chains.from(ctx, Deserializer.payload()).sink(TestEncoders.payload(), KeyHashRouter.byRecordKey());
    }

    @Bean
    SinkDefinition counting() {
        return SinkDefinition.builder("counting", 2, (shard) -> (batch) -> ROWS.addAndGet(batch.rowCount()))
                .build();
    }
}
