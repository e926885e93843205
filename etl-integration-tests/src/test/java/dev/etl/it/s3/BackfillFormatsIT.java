package dev.etl.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdOutputStream;
import dev.etl.avro.AvroDeserializer;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.json.JsonDeserializer;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainContext;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.s3.BackfillPlanner;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import dev.etl.sink.RowEncoder;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.infra.InfraServer;
import dev.etl.test.infra.KafkaTestTopics;
import dev.etl.test.infra.LocalInfra;
import dev.etl.test.infra.S3TestBuckets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import tools.jackson.databind.JsonNode;

/**
 * Each format through S3Proxy into the chain a Kafka topic of the same data would use: Avro object
 * container files (three codecs, split on sync markers, two writer schemas) and Parquet (several row
 * groups) read by one Confluent-framed {@code AvroDeserializer}, NDJSON (zstd and plain) by the JSON
 * deserializer; and corrupt files: a damaged Avro block under {@code on-corrupt=skip} (the rows before
 * it delivered, the item counted) and a malformed NDJSON line (the deserializer's policy, per record).
 */
@LocalInfra({InfraServer.KAFKA, InfraServer.S3})
class BackfillFormatsIT {
    private static final Schema V1 = SchemaBuilder.record("Order")
            .namespace("it")
            .fields()
            .requiredLong("id")
            .requiredString("customer")
            .name("tags")
            .type()
            .array()
            .items()
            .stringType()
            .noDefault()
            .requiredDouble("amount")
            .endRecord();
    /** v2 adds a field with a default: the reader (v1) resolves it away. */
    private static final Schema V2 = SchemaBuilder.record("Order")
            .namespace("it")
            .fields()
            .requiredLong("id")
            .requiredString("customer")
            .name("tags")
            .type()
            .array()
            .items()
            .stringType()
            .noDefault()
            .requiredDouble("amount")
            .name("channel")
            .type()
            .stringType()
            .stringDefault("web")
            .endRecord();

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void avroContainerFilesAndParquetReachTheTopicsAvroChainEveryRecordOnce(
            KafkaTestTopics topics, S3TestBuckets buckets, @TempDir Path dir) throws Exception {
        String bucket = buckets.create("formats-avro");
        int n = 0;
        CodecFactory[] codecs = {CodecFactory.zstandardCodec(3), CodecFactory.deflateCodec(6), CodecFactory.nullCodec()
        };
        for (int f = 0; f < 3; f++) {
            Schema schema = f == 1 ? V2 : V1;
            List<GenericRecord> records = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                records.add(order(schema, n++));
            }
            put(buckets, bucket, "orders/part-" + f + ".avro", avro(schema, records, codecs[f]));
        }
        List<GenericRecord> parquet = new ArrayList<>();
        for (int i = 0; i < 8_000; i++) {
            parquet.add(order(V1, n++));
        }
        put(buckets, bucket, "orders/part-3.parquet", parquet(dir.resolve("p.parquet"), parquet));
        int total = n;

        BitSet seen = backfill(
                topics,
                buckets,
                bucket,
                "formats-avro",
                32 * 1024,
                S3BackfillConfig.CorruptPolicy.FAIL,
                ctx -> Chains.from(
                                ctx,
                                AvroDeserializer.generic(V1)
                                        .confluent(registry())
                                        .build())
                        .sink(idEncoder(r -> (Long) r.get("id")), (v, m, s) -> 0),
                total);
        assertThat(seen.cardinality()).isEqualTo(total);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void ndjsonPlainAndZstdReachTheJsonChainAndAMalformedLineIsTheDeserializersPolicyPerRecord(
            KafkaTestTopics topics, S3TestBuckets buckets) throws Exception {
        String bucket = buckets.create("formats-json");
        StringBuilder plain = new StringBuilder();
        StringBuilder zstd = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            (i % 2 == 0 ? plain : zstd)
                    .append("{\"id\":")
                    .append(i)
                    .append(",\"customer\":\"c")
                    .append(i % 97)
                    .append("\"}\n");
            if (i == 777) {
                plain.append("{\"id\": 7x7, broken\n");
            }
        }
        put(buckets, bucket, "orders/a.ndjson", plain.toString().getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (ZstdOutputStream out = new ZstdOutputStream(compressed)) {
            out.write(zstd.toString().getBytes(StandardCharsets.UTF_8));
        }
        put(buckets, bucket, "orders/b.jsonl.zst", compressed.toByteArray());

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        BitSet seen = backfill(
                topics,
                buckets,
                bucket,
                "formats-json",
                64 * 1024,
                S3BackfillConfig.CorruptPolicy.FAIL,
                ctx -> Chains.from(ctx, JsonDeserializer.tree().build())
                        .sink(idEncoder((JsonNode node) -> node.get("id").asLong()), (v, m, s) -> 0),
                20_000,
                registry);
        assertThat(seen.cardinality()).isEqualTo(20_000);
        assertThat(registry.get("etl.errors")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .as("the malformed line, skipped by the deserialization policy")
                .isEqualTo(1.0);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDamagedAvroBlockUnderSkipDeliversTheRowsBeforeItAndCountsTheItem(
            KafkaTestTopics topics, S3TestBuckets buckets) throws Exception {
        String bucket = buckets.create("formats-corrupt");
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            records.add(order(V1, i));
        }
        byte[] file = avro(V1, records, CodecFactory.deflateCodec(6));
        // flip bytes in the middle of the file: some block's data or sync marker no longer reads
        for (int i = file.length / 2; i < file.length / 2 + 16; i++) {
            file[i] = (byte) ~file[i];
        }
        put(buckets, bucket, "orders/damaged.avro", file);
        List<GenericRecord> good = new ArrayList<>();
        for (int i = 5_000; i < 6_000; i++) {
            good.add(order(V1, i));
        }
        put(buckets, bucket, "orders/good.avro", avro(V1, good, CodecFactory.nullCodec()));

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        BitSet seen = backfill(
                topics,
                buckets,
                bucket,
                "formats-corrupt",
                1L << 30,
                S3BackfillConfig.CorruptPolicy.SKIP,
                ctx -> Chains.from(
                                ctx,
                                AvroDeserializer.generic(V1)
                                        .confluent(registry())
                                        .build())
                        .sink(idEncoder(r -> (Long) r.get("id")), (v, m, s) -> 0),
                -1,
                registry);
        assertThat(registry.get("etl.backfill.items")
                        .tag("outcome", "corrupt")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        int before = seen.nextClearBit(0);
        assertThat(before)
                .as("the rows before the damaged block")
                .isGreaterThan(0)
                .isLessThan(5_000);
        assertThat(seen.get(before, 5_000).cardinality())
                .as("nothing after the damage")
                .isZero();
        assertThat(seen.get(5_000, 6_000).cardinality()).as("the good file").isEqualTo(1_000);
    }

    // ------------------------------------------------------------------------------------------------

    private BitSet backfill(
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            String bucket,
            String name,
            long split,
            S3BackfillConfig.CorruptPolicy onCorrupt,
            Function<ChainContext, Chain> chain,
            int expected)
            throws Exception {
        return backfill(topics, buckets, bucket, name, split, onCorrupt, chain, expected, new SimpleMeterRegistry());
    }

    private BitSet backfill(
            KafkaTestTopics topics,
            S3TestBuckets buckets,
            String bucket,
            String name,
            long split,
            S3BackfillConfig.CorruptPolicy onCorrupt,
            Function<ChainContext, Chain> chain,
            int expected,
            SimpleMeterRegistry registry)
            throws Exception {
        String work = topics.create(name, 2);
        S3ObjectStore store = BackfillProcessesIT.store(buckets.endpoints());
        BackfillPlanner.builder()
                .store(store)
                .kafka(Map.of("bootstrap.servers", topics.bootstrapServers()))
                .workTopic(work)
                .bucket(bucket)
                .prefix("orders/")
                .splitBytes(split)
                .build()
                .plan();
        S3BackfillSource source = new S3BackfillSource(S3BackfillConfig.builder()
                .workTopic(KafkaSourceConfig.builder()
                        .property("bootstrap.servers", topics.bootstrapServers())
                        .property("group.id", "it-" + work)
                        .topics(work)
                        .pipeline(name)
                        .meterRegistry(registry)
                        .build())
                .store(store)
                .bucket(bucket)
                .prefix("orders/")
                .onCorrupt(onCorrupt)
                .progressInterval(Duration.ofMillis(500))
                .meterRegistry(registry)
                .build());
        CaptureSink capture = CaptureSink.create("capture", 1);
        PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder(name)
                        .lanes(2)
                        .checkpointInterval(Duration.ofMillis(200))
                        .pollTimeout(Duration.ofMillis(50))
                        .classPolicies(Map.of(ErrorClass.DESERIALIZATION, ErrorPolicy.SKIP))
                        .build())
                .source(source)
                .sink(capture.definition())
                .chains(chain::apply)
                .meterRegistry(registry)
                .build();
        runtime.start();
        try {
            assertThat(source.awaitDone(Duration.ofSeconds(120)))
                    .as("the backfill ends; failure: " + runtime.failure())
                    .isTrue();
        } finally {
            runtime.shutdown();
            runtime.awaitTermination(Duration.ofSeconds(20));
        }
        BitSet seen = new BitSet();
        long rows = 0;
        for (var write : capture.script().writes()) {
            for (String id : TestEncoders.decodeStrings(write.bytes())) {
                seen.set(Integer.parseInt(id));
                rows++;
            }
        }
        if (expected >= 0) {
            assertThat(rows).as("rows written (each once)").isEqualTo(expected);
        }
        return seen;
    }

    private static <T> RowEncoder<T> idEncoder(java.util.function.ToLongFunction<T> id) {
        RowEncoder<String> strings = TestEncoders.string();
        return (value, meta, out) -> strings.encode(Long.toString(id.applyAsLong(value)), meta, out);
    }

    private static SchemaRegistryClient registry() {
        // never asked: single-object rows carry their writer schema's fingerprint, not a registry id
        return SchemaRegistryClient.builder("http://127.0.0.1:9").build();
    }

    private static GenericRecord order(Schema schema, long id) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("customer", "customer-" + (id % 1000));
        r.put("tags", List.of("t" + (id % 3), "u" + (id % 7)));
        r.put("amount", id * 0.25);
        if (schema.getField("channel") != null) {
            r.put("channel", id % 2 == 0 ? "web" : "store");
        }
        return r;
    }

    private static byte[] avro(Schema schema, List<GenericRecord> records, CodecFactory codec) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataFileWriter<GenericRecord> writer =
                new DataFileWriter<>(new GenericDatumWriter<GenericRecord>(schema))) {
            writer.setCodec(codec);
            writer.setSyncInterval(4096);
            writer.create(schema, bytes);
            for (GenericRecord r : records) {
                writer.append(r);
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] parquet(Path file, List<GenericRecord> records) throws IOException {
        try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                .withSchema(V1)
                .withDataModel(GenericData.get())
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withRowGroupRowCountLimit(1_500)
                .build()) {
            for (GenericRecord r : records) {
                writer.write(r);
            }
        }
        return Files.readAllBytes(file);
    }

    private static void put(S3TestBuckets buckets, String bucket, String key, byte[] bytes) {
        buckets.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
    }
}
