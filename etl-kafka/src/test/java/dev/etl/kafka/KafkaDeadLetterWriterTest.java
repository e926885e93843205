package dev.etl.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.SinkWriteException;
import dev.etl.record.Payload;
import dev.etl.sink.DeadLetterEncoder;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.SealedBatch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class KafkaDeadLetterWriterTest {
    private static final Map<String, Object> PROPS = Map.of("bootstrap.servers", "localhost:1");

    private record Batch(byte[] bytes, int byteCount, int rowCount) implements SealedBatch {
        public String sinkName() {
            return "dead-letter";
        }

        public int shard() {
            return 0;
        }

        public long sequence() {
            return 1;
        }

        public String dedupToken() {
            return "t";
        }

        public int attempt() {
            return 1;
        }
    }

    private static Batch batch(String... values) {
        RowBuffer out = new RowBuffer(64);
        for (String value : values) {
            DeadLetterEncoder.encode(
                    out,
                    new Payload().wrap(("k-" + value).getBytes(StandardCharsets.UTF_8)),
                    new Payload().wrap(value.getBytes(StandardCharsets.UTF_8)),
                    5L,
                    "etl.stage",
                    "parse",
                    "etl.source.offset",
                    "12");
        }
        return new Batch(out.array(), out.length(), values.length);
    }

    private final List<MockProducer<byte[], byte[]>> created = new ArrayList<>();

    private KafkaDeadLetterWriter writer(boolean autoComplete) {
        return new KafkaDeadLetterWriter(PROPS, "dlq", Duration.ofMillis(200), props -> {
            assertThat(props)
                    .containsEntry("acks", "all")
                    .containsEntry("enable.idempotence", "true")
                    .containsEntry("key.serializer", ByteArraySerializer.class.getName());
            MockProducer<byte[], byte[]> producer =
                    new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
            created.add(producer);
            return producer;
        });
    }

    @Test
    void sendsEveryRecordWithItsOriginalBytesAndHeadersAndFlushes() throws Exception {
        KafkaDeadLetterWriter writer = writer(true);

        writer.write(batch("a", "b"));

        MockProducer<byte[], byte[]> producer = created.get(0);
        assertThat(producer.flushed()).isTrue();
        assertThat(producer.history()).hasSize(2);
        ProducerRecord<byte[], byte[]> first = producer.history().get(0);
        assertThat(first.topic()).isEqualTo("dlq");
        assertThat(first.key()).isEqualTo("k-a".getBytes(StandardCharsets.UTF_8));
        assertThat(first.value()).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(first.headers().lastHeader("etl.stage").value(), StandardCharsets.UTF_8))
                .isEqualTo("parse");
        assertThat(new String(first.headers().lastHeader("etl.source.offset").value(), StandardCharsets.UTF_8))
                .isEqualTo("12");
    }

    @Test
    void unacknowledgedSendsTimeOutAsTransient() {
        KafkaDeadLetterWriter writer = new KafkaDeadLetterWriter(PROPS, "dlq", Duration.ofMillis(100), props -> {
            MockProducer<byte[], byte[]> producer =
                    new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer()) {
                        @Override
                        public synchronized void flush() {
                            // a broker that never acknowledges
                        }
                    };
            created.add(producer);
            return producer;
        });
        assertThatThrownBy(() -> writer.write(batch("a")))
                .isInstanceOfSatisfying(
                        SinkWriteException.class,
                        e -> assertThat(e.isTransient()).isTrue())
                .hasMessageContaining("not acknowledged within");
    }

    @Test
    void classifiesKafkaErrors() {
        KafkaDeadLetterWriter writer = writer(true);
        Batch batch = batch("a");
        assertThat(writer.classify(batch, new NotEnoughReplicasException("isr")).isTransient())
                .isTrue();
        assertThat(writer.classify(batch, new TopicAuthorizationException("denied"))
                        .isTransient())
                .isFalse();
        assertThat(writer.classify(batch, new ProducerFencedException("fenced")).isTransient())
                .isTrue();
    }

    @Test
    void aFencedProducerIsReplacedForTheRetry() throws Exception {
        KafkaDeadLetterWriter writer = writer(true);
        writer.write(batch("a"));
        created.get(0).sendException = new ProducerFencedException("fenced");

        assertThatThrownBy(() -> writer.write(batch("b")))
                .isInstanceOfSatisfying(
                        SinkWriteException.class,
                        e -> assertThat(e.isTransient()).isTrue());
        writer.write(batch("b"));

        assertThat(created).hasSize(2);
        assertThat(created.get(1).history()).hasSize(1);
    }

    @Test
    void refusesSettingsThatBreakTheGuarantee() {
        assertThatThrownBy(() -> KafkaDeadLetterWriter.producerProperties(
                        Map.of("bootstrap.servers", "x", "acks", "1"), Duration.ofSeconds(1)))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("dead-letter producer setting 'acks'");
        assertThatThrownBy(() -> KafkaDeadLetterWriter.producerProperties(
                        Map.of("bootstrap.servers", "x", "enable.idempotence", "false"), Duration.ofSeconds(1)))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("enable.idempotence");
        assertThatThrownBy(() -> KafkaDeadLetterWriter.producerProperties(Map.of(), Duration.ofSeconds(1)))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> KafkaDeadLetterWriter.sink("dead-letter", PROPS, " ", Duration.ofSeconds(1)))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("topic");
        assertThat(KafkaDeadLetterWriter.producerProperties(
                        Map.of("bootstrap.servers", "x", "acks", "-1"), Duration.ofSeconds(3)))
                .containsEntry("acks", "all")
                .containsEntry("max.block.ms", "3000");
    }

    @Test
    void aTypoOfAProducerSettingIsRefusedWithTheClosestName() {
        assertThatThrownBy(() -> KafkaDeadLetterWriter.producerProperties(
                        Map.of("bootstrap.servers", "x", "linger.msx", "5"), Duration.ofSeconds(1)))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("dead-letter producer setting 'linger.msx'")
                .hasMessageContaining("did you mean 'linger.ms'?");
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private KafkaDeadLetterWriter limitedWriter(int maxRecordBytes) {
        return new KafkaDeadLetterWriter(
                PROPS,
                "dlq",
                Duration.ofMillis(200),
                new KafkaDeadLetterWriter.Options(maxRecordBytes, false, registry, "p"),
                OptionalInt.empty(),
                props -> {
                    MockProducer<byte[], byte[]> producer =
                            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
                    created.add(producer);
                    return producer;
                });
    }

    private static Batch bigBatch(int keyBytes, int valueBytes) {
        RowBuffer out = new RowBuffer(64);
        byte[] key = new byte[keyBytes];
        byte[] value = new byte[valueBytes];
        Arrays.fill(key, (byte) 'k');
        Arrays.fill(value, (byte) 'v');
        DeadLetterEncoder.encode(
                out,
                new Payload().wrap(key),
                new Payload().wrap(value),
                5L,
                "etl.stage",
                "parse",
                "etl.source.offset",
                "12");
        DeadLetterEncoder.encode(
                out,
                new Payload().wrap("k".getBytes(StandardCharsets.UTF_8)),
                new Payload().wrap("small".getBytes(StandardCharsets.UTF_8)),
                6L,
                "etl.stage",
                "parse",
                "etl.source.offset",
                "13");
        return new Batch(out.array(), out.length(), 2);
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return record.headers().lastHeader(name) == null
                ? null
                : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private static long size(ProducerRecord<byte[], byte[]> record) {
        long size =
                (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
        for (var header : record.headers()) {
            size += header.key().length() + header.value().length;
        }
        return size;
    }

    @Test
    void anOversizedValueIsTruncatedToTheLimitWithHeadersSayingSoAndCounted() throws Exception {
        KafkaDeadLetterWriter writer = limitedWriter(32 * 1024);
        writer.write(bigBatch(10, 5 * 1024 * 1024));

        ProducerRecord<byte[], byte[]> cut = created.get(0).history().get(0);
        assertThat(size(cut)).isLessThanOrEqualTo(32 * 1024);
        assertThat(cut.value().length).isGreaterThan(30 * 1024);
        assertThat(cut.key()).hasSize(10);
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_TRUNCATED)).isEqualTo("value");
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_ORIGINAL_VALUE_BYTES))
                .isEqualTo(Integer.toString(5 << 20));
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_ORIGINAL_KEY_BYTES)).isNull();
        assertThat(header(cut, "etl.source.offset")).isEqualTo("12");
        ProducerRecord<byte[], byte[]> small = created.get(0).history().get(1);
        assertThat(small.value()).isEqualTo("small".getBytes(StandardCharsets.UTF_8));
        assertThat(header(small, KafkaDeadLetterWriter.HEADER_TRUNCATED)).isNull();
        assertThat(registry.get("etl.dead.letter.truncated")
                        .tag("topic", "dlq")
                        .tag("pipeline", "p")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(writer.isHealthy()).isTrue();
    }

    @Test
    void anOversizedKeyIsTruncatedTooAndTheValueEmptied() throws Exception {
        KafkaDeadLetterWriter writer = limitedWriter(16 * 1024);
        writer.write(bigBatch(40 * 1024, 100));

        ProducerRecord<byte[], byte[]> cut = created.get(0).history().get(0);
        assertThat(size(cut)).isLessThanOrEqualTo(16 * 1024);
        assertThat(cut.value()).isEmpty();
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_TRUNCATED)).isEqualTo("key,value");
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_ORIGINAL_KEY_BYTES)).isEqualTo(Integer.toString(40 * 1024));
        assertThat(header(cut, KafkaDeadLetterWriter.HEADER_ORIGINAL_VALUE_BYTES))
                .isEqualTo("100");
    }

    @Test
    void theLimitIsTheSmallestOfTheConfiguredOneMaxRequestSizeBufferMemoryAndTheTopicsLimit() {
        assertThat(DeadLetterTruncation.sizeLimit(1 << 20, Map.of(), OptionalInt.empty()))
                .isEqualTo(1 << 20);
        assertThat(DeadLetterTruncation.sizeLimit(1 << 20, Map.of("max.request.size", "500000"), OptionalInt.empty()))
                .isEqualTo(500_000);
        assertThat(DeadLetterTruncation.sizeLimit(1 << 20, Map.of("buffer.memory", 400_000), OptionalInt.of(300_000)))
                .isEqualTo(300_000);
        assertThatThrownBy(() -> new KafkaDeadLetterWriter.Options(1000, true, null, "p"))
                .isInstanceOf(KafkaConfigException.class)
                .hasMessageContaining("max-record-bytes");
    }

    @Test
    void failingWritesMakeTheWriterUnhealthyAndCountUntilAWriteSucceeds() throws Exception {
        KafkaDeadLetterWriter writer = limitedWriter(1 << 20);
        writer.write(batch("a"));
        assertThat(writer.isHealthy()).isTrue();
        created.get(0).sendException = new NotEnoughReplicasException("isr");

        assertThatThrownBy(() -> writer.write(batch("b"))).isInstanceOf(SinkWriteException.class);
        assertThat(writer.isHealthy()).isFalse();
        assertThatThrownBy(() -> writer.write(batch("b"))).isInstanceOf(SinkWriteException.class);
        assertThat(writer.isHealthy()).isFalse();
        assertThat(registry.get("etl.dead.letter.write.failures")
                        .tag("topic", "dlq")
                        .counter()
                        .count())
                .isEqualTo(2);

        created.get(0).sendException = null;
        writer.write(batch("b"));
        assertThat(writer.isHealthy()).isTrue();
        assertThat(registry.get("etl.dead.letter.write.failures")
                        .tag("topic", "dlq")
                        .counter()
                        .count())
                .isEqualTo(2);
    }
}
