package dev.etl.it.kafka;

import dev.etl.error.SinkWriteException;
import dev.etl.kafka.KafkaSource;
import dev.etl.kafka.KafkaSourceConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.RunReport;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import dev.etl.sink.SinkDefinition;
import dev.etl.test.capture.TestEncoders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The pipeline of {@link KafkaSourceCrashIT}, run in a child JVM so the test can SIGKILL it:
 * Kafka → pass-through chain → a file. The writer appends each batch's values, one per line, and
 * fsyncs before returning, so a line in the file is exactly a "durable write" the pipeline may commit.
 *
 * <p>Arguments: {@code bootstrap topic group outputFile writeDelayMs [key=value,...]} (the optional last
 * one: extra consumer properties, e.g. {@code group.instance.id=x,session.timeout.ms=45000}, applied
 * last). Prints {@code STARTED} once
 * running; a SIGTERM drains gracefully and prints {@code DRAINED exitCode=<code>} (the JVM itself
 * then exits with 143, as for any SIGTERM).
 */
public final class KafkaChildPipeline {
    private KafkaChildPipeline() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        Path output = Path.of(args[3]);
        long writeDelayMs = Long.parseLong(args[4]);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KafkaSourceConfig.Builder config = KafkaItSupport.sourceConfig(bootstrap, group, topic, registry, "child")
                .property("max.poll.records", 500)
                .property("session.timeout.ms", 6_000)
                .property("heartbeat.interval.ms", 500);
        if (args.length > 5 && !args[5].isBlank()) {
            for (String setting : args[5].split(",")) {
                int eq = setting.indexOf('=');
                config.property(setting.substring(0, eq), setting.substring(eq + 1));
            }
        }
        KafkaSource source = new KafkaSource(config.build());
        FileChannel channel = FileChannel.open(
                output, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        ShardWriter writer = batch -> append(channel, batch, writeDelayMs);
        SinkDefinition sink = SinkDefinition.builder("file", 1, shard -> writer)
                .batch(new BatchConfig(1_000, 1L << 20, Duration.ofMillis(20)))
                .build();
        PipelineRuntime runtime = KafkaItSupport.pipeline(
                KafkaItSupport.pipelineConfig("child", 2).build(), source, sink, (v, m, s) -> 0, registry);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runtime.shutdown();
            try {
                RunReport report = runtime.awaitTermination(Duration.ofSeconds(20));
                System.out.println("DRAINED exitCode=" + (report == null ? "timeout" : report.exitCode()));
                System.out.flush();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        runtime.start();
        System.out.println("STARTED");
        System.out.flush();
        runtime.awaitTermination();
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
        StringBuilder lines = new StringBuilder(values.size() * 8);
        for (String value : values) {
            lines.append(value).append('\n');
        }
        try {
            ByteBuffer buffer = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.US_ASCII));
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        } catch (IOException e) {
            throw SinkWriteException.transientFailure("cannot append to the output file", e);
        }
    }
}
