package dev.etl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.error.SinkWriteException;
import dev.etl.ops.Chains;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.StatefulOperator;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.record.Collector;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import dev.etl.test.memory.MemorySource;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples of docs/extending/*.md, compiled and run. */
class ExtendingTest {

    // tag::operator[]
    /**
     * Stateful: numbers each value per partition, e.g. "3:hello". One instance per lane (the
     * ChainFactory runs per lane), so plain fields need no locks.
     */
    static final class SequenceNumbering implements StatefulOperator<String, String> {
        private final org.agrona.collections.Int2IntHashMap nextByPartition =
                new org.agrona.collections.Int2IntHashMap(0);
        private OperatorContext context;
        private Counter numbered;

        @Override
        public void open(OperatorContext context) {
            this.context = context;
            this.numbered = Counter.builder("app.numbered")
                    .tag("lane", Integer.toString(context.laneIndex()))
                    .register(context.meterRegistry());
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            int partition = context.meta().partition();
            int n = nextByPartition.get(partition);
            nextByPartition.put(partition, n + 1);
            numbered.increment();
            out.collect(n + ":" + in);
        }
    }
    // end::operator[]

    // tag::writer[]
    /**
     * A sink that appends each sealed batch to a file per shard and forces it to disk before
     * returning: returning normally is the promise that the batch is durable.
     */
    static final class FileShardWriter implements ShardWriter {
        private final FileChannel channel;

        FileShardWriter(Path dir, int shard) throws IOException {
            this.channel = FileChannel.open(
                    dir.resolve("shard-" + shard + ".bin"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
        }

        @Override
        public void write(SealedBatch batch) {
            try {
                ByteBuffer bytes = ByteBuffer.wrap(batch.bytes(), 0, batch.byteCount());
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(false);
            } catch (IOException e) {
                // Transient: the engine retries the same bytes with backoff.
                throw SinkWriteException.transientFailure(
                        "writing batch " + batch.sequence() + " of shard " + batch.shard() + " failed: "
                                + e.getMessage(),
                        e);
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
    // end::writer[]

    @Test
    void customOperatorAndCustomSinkRunInAPipeline(@TempDir Path dir) throws Exception {
        MemorySource source = MemorySource.create();
        // tag::wiring[]
        SinkDefinition files = SinkDefinition.builder("files", 2, shard -> {
                    try {
                        return new FileShardWriter(dir, shard);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .build();
        Deserializer<String> utf8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
        PipelineRuntime runtime = Pipeline.builder(
                        PipelineConfig.builder("extending").build())
                .source(source)
                .sink(files)
                .chains(ctx -> Chains.from(ctx, utf8)
                        .process("number", new SequenceNumbering())
                        .sink(TestEncoders.string(), KeyHashRouter.byRecordKey()))
                .build();
        // end::wiring[]
        runtime.start();
        source.handle().assign(0, 0);
        source.handle().push(0, null, "a".getBytes(StandardCharsets.UTF_8));
        long last = source.handle().push(0, null, "b".getBytes(StandardCharsets.UTF_8));
        assertThat(source.handle().awaitCommitted(0, last + 1, Duration.ofSeconds(20)))
                .isTrue();
        runtime.shutdown();
        assertThat(runtime.awaitTermination(Duration.ofSeconds(30)).exitCode()).isZero();

        byte[] written = Files.readAllBytes(dir.resolve("shard-0.bin"));
        assertThat(TestEncoders.decodeStrings(written)).containsExactly("0:a", "1:b");
        assertThat(runtime.meterRegistry().get("app.numbered").counter().count())
                .isEqualTo(2.0);
    }
}
