package dev.etl.it.s3;

import dev.etl.deser.Deserializer;
import dev.etl.error.SinkWriteException;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.ops.Chains;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.s3.S3BackfillConfig;
import dev.etl.s3.S3BackfillSource;
import dev.etl.s3.S3ObjectStore;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The backfill pipeline of {@link BackfillProcessesIT}, in a child JVM the test can SIGKILL: S3 (the
 * local S3Proxy) → pass-through chain → a file, each batch's rows (NDJSON lines) appended and fsynced
 * before the write returns, so a line in the file is exactly a durable write the pipeline may commit.
 *
 * <p>Arguments: {@code bootstrap workTopic group outputFile writeDelayMs s3Endpoint accessKey secretKey bucket}.
 * Prints {@code STARTED}; when the backfill is done it shuts down, prints {@code DONE exitCode=<code>} and
 * exits with that code.
 */
public final class BackfillChildPipeline {
    private BackfillChildPipeline() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String workTopic = args[1];
        String group = args[2];
        Path output = Path.of(args[3]);
        long writeDelayMs = Long.parseLong(args[4]);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        S3ObjectStore store = S3ObjectStore.builder()
                .endpoint(URI.create(args[5]))
                .region("us-east-1")
                .credentials(args[6], args[7])
                .pathStyleAccess(true)
                .build();
        KafkaSourceConfig work = KafkaSourceConfig.builder()
                .property("bootstrap.servers", bootstrap)
                .property("group.id", group)
                .property("session.timeout.ms", 6_000)
                .property("heartbeat.interval.ms", 500)
                .topics(workTopic)
                .pipeline("child")
                .meterRegistry(registry)
                .build();
        S3BackfillSource source = new S3BackfillSource(S3BackfillConfig.builder()
                .workTopic(work)
                .store(store)
                .bucket(args[8])
                .maxBatchRows(500)
                .progressInterval(Duration.ofMillis(500))
                .meterRegistry(registry)
                .build());
        FileChannel channel = FileChannel.open(
                output, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        ShardWriter writer = batch -> append(channel, batch, writeDelayMs);
        SinkDefinition sink = SinkDefinition.builder("file", 1, shard -> writer)
                .batch(new BatchConfig(1_000, 1L << 20, Duration.ofMillis(20)))
                .deterministicBlocks(true)
                .build();
        PipelineRuntime runtime = Pipeline.builder(PipelineConfig.builder("child")
                        .lanes(2)
                        .checkpointInterval(Duration.ofMillis(200))
                        .drainTimeout(Duration.ofSeconds(10))
                        .pollTimeout(Duration.ofMillis(50))
                        .build())
                .source(source)
                .sink(sink)
                .chains(ctx -> Chains.from(ctx, Deserializer.payload()).sink(TestEncoders.payload(), (v, m, s) -> 0))
                .meterRegistry(registry)
                .build();
        source.onDone(runtime::shutdown);
        runtime.start();
        System.out.println("STARTED");
        System.out.flush();
        RunReport report = runtime.awaitTermination();
        System.out.println("DONE exitCode=" + report.exitCode());
        System.out.flush();
        System.exit(report.exitCode());
    }

    private static void append(FileChannel channel, SealedBatch batch, long delayMs) throws SinkWriteException {
        if (delayMs > 0) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw SinkWriteException.transientFailure("interrupted", e);
            }
        }
        List<String> values = TestEncoders.decodeStrings(Arrays.copyOf(batch.bytes(), batch.byteCount()));
        StringBuilder lines = new StringBuilder(values.size() * 12);
        for (String value : values) {
            lines.append(value).append('\n');
        }
        try {
            ByteBuffer buffer = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        } catch (IOException e) {
            throw SinkWriteException.transientFailure("cannot append to the output file", e);
        }
    }
}
