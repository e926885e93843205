package dev.etl.datagen.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.avro.AvroDeserializer;
import dev.etl.datagen.AvroRecordGenerator;
import dev.etl.datagen.DatagenSource;
import dev.etl.datagen.RecordGenerator;
import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.KeyHashRouter;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** The code of docs/connectors/datagen.md, compiled and run. */
class DatagenGuideTest {

    // tag::generator[]
    private static final byte[][] SKUS = {
        "sku-1".getBytes(StandardCharsets.UTF_8),
        "sku-2".getBytes(StandardCharsets.UTF_8),
        "sku-3".getBytes(StandardCharsets.UTF_8)
    };

    /** Key: the record's id. Value: "<id>,<sku>,<quantity>" in ASCII. Allocates nothing per record. */
    static final RecordGenerator ORDER_LINES = (partition, sequence, random, out) -> {
        out.key().writeLongBE(out.id());
        out.value()
                .writeUtf8(Long.toString(out.id())) // a short-lived String; a digit loop would avoid it
                .writeByte(',')
                .writeBytes(SKUS[random.nextInt(SKUS.length)])
                .writeByte(',')
                .writeByte('0' + random.nextInt(1, 10));
    };
    // end::generator[]

    @Test
    void aBoundedRunInPlainJavaWritesEveryRecordAndEndsCleanly() throws Exception {
        CaptureSink sink = CaptureSink.create("lines", 2);
        // tag::pipeline[]
        PipelineConfig config = PipelineConfig.builder("order-lines").lanes(2).build();
        DatagenSource source = DatagenSource.builder(ORDER_LINES)
                .partitions(4)
                .records(100_000) // bounded: exactly ids 0 … 99,999
                .seed(42) // the same seed, the same records
                .lanes(config.lanes()) // partition p is read by lane p % lanes
                .build();
        ChainFactory chain = ctx -> Chains.from(ctx, Deserializer.payload())
                .map("to-text", payload -> payload.toUtf8String())
                .sink(TestEncoders.string(), KeyHashRouter.byRecordKey());
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(chain)
                .build();
        source.onDone(runtime::shutdown); // done = every record written and committed
        runtime.start();
        RunReport report = runtime.awaitTermination();
        // report.exitCode() == 0: nothing left unwritten or uncommitted
        // end::pipeline[]

        assertThat(report.exitCode()).isZero();
        assertThat(sink.script().rows()).isEqualTo(100_000);
        assertThat(source.isDone()).isTrue();
    }

    @Test
    void anAvroSchemaDrivesTheGeneratorAndAvroDeserializerReadsIt() throws Exception {
        CaptureSink sink = CaptureSink.create("orders", 1);
        PipelineConfig config = PipelineConfig.builder("orders")
                .checkpointInterval(Duration.ofMillis(50))
                .build();
        // tag::avro[]
        Schema orders = parse("/order.avsc"); // fields with "datagen" hints (Avro records from a schema)
        DatagenSource source = DatagenSource.builder(
                        AvroRecordGenerator.builder(orders).raw().build())
                .partitions(8)
                .records(10_000)
                .ratePerSecond(50_000)
                .build();
        AvroDeserializer.Builder<GenericRecord> avro =
                AvroDeserializer.generic(orders).raw(orders);
        ChainFactory chain = ctx -> Chains.from(ctx, avro.build())
                .filter("paid", order -> order.get("status").toString().equals("PAID"))
                .map("to-text", order -> order.get("id") + ":" + order.get("amountCents"))
                .sink(TestEncoders.string(), KeyHashRouter.byRecordKey());
        // end::avro[]
        PipelineRuntime runtime = Pipeline.builder(config)
                .source(source)
                .sink(sink.definition())
                .chains(chain)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        RunReport report = runtime.awaitTermination(Duration.ofSeconds(60));

        assertThat(report.exitCode()).isZero();
        assertThat(sink.script().rows()).as("about a third are PAID").isBetween(3_000L, 3_700L);
    }

    private static Schema parse(String resource) throws IOException {
        try (InputStream in = DatagenGuideTest.class.getResourceAsStream(resource)) {
            return new Schema.Parser().parse(in);
        }
    }
}
