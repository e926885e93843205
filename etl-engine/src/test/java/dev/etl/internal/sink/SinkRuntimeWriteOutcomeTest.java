package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.SinkWriteException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SinkRuntimeWriteOutcomeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private SinkDefinition oneRowBatches(int shards) {
        return fx.definition(shards, 10, Duration.ofHours(1));
    }

    @Test
    void acksSucceedOnlyAfterTheWriteReturns() {
        CountDownLatch release = new CountDownLatch(1);
        fx.writer.blockUntil(release);
        SinkRuntime sink = fx.start(oneRowBatches(1));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        await("the write to start", TIMEOUT, () -> fx.writer.calls() == 1);
        AckRef ack = lane.created().get(0);
        assertThat(fx.acks.isEmpty())
                .as("ack posted while the write is in progress")
                .isTrue();
        assertThat(ack.refCount()).isEqualTo(1);
        assertThat(sink.isIdle()).isFalse();

        release.countDown();
        await("the ack", TIMEOUT, () -> !fx.acks.isEmpty());
        assertThat(TestLane.drain(fx.acks)).containsExactly(ack);
        assertThat(ack.succeeded()).isTrue();
        await("idle", TIMEOUT, sink::isIdle);
        assertThat(fx.counter("etl.sink.rows", "shard", "0")).isEqualTo(10);
        assertThat(fx.counter("etl.sink.bytes", "shard", "0")).isEqualTo(80);
        assertThat(fx.counter("etl.sink.batches", "outcome", "success")).isEqualTo(1);
        assertThat(fx.registry
                        .get("etl.sink.write.duration")
                        .tag("outcome", "success")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(fx.registry.get("etl.sink.batch.rows").summary().totalAmount())
                .isEqualTo(10);
    }

    @Test
    void transientFailuresAreRetriedWithTheSameBytesAndToken() {
        fx.writer.failFirst(2, true);
        SinkRuntime sink = fx.start(oneRowBatches(1));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        await("success after two failures", TIMEOUT, () -> sink.isIdle());
        List<RecordingShardWriter.Written> attempts = fx.writer.attempts();
        assertThat(attempts).hasSize(3);
        assertThat(attempts).extracting(RecordingShardWriter.Written::attempt).containsExactly(1, 2, 3);
        assertThat(attempts)
                .extracting(RecordingShardWriter.Written::token)
                .containsOnly(attempts.get(0).token());
        assertThat(attempts)
                .allSatisfy(a -> assertThat(a.bytes()).isEqualTo(attempts.get(0).bytes()));
        assertThat(attempts)
                .extracting(RecordingShardWriter.Written::sequence)
                .containsOnly(attempts.get(0).sequence());
        assertThat(TestLane.drain(fx.acks)).singleElement().matches(AckRef::succeeded);
        assertThat(fx.counter("etl.sink.retries")).isEqualTo(2);
        assertThat(fx.counter("etl.errors", "error_type", "sink_transient", "stage", "sink:orders"))
                .isEqualTo(2);
        assertThat(fx.budget.inFlightBytes()).isZero();
    }

    @Test
    void exceptionsOtherThanSinkWriteExceptionAreRetriedAsTransient() {
        fx.writer.behave((batch, call) -> {
            if (call == 0) {
                throw new IllegalStateException("connection reset");
            }
        });
        SinkRuntime sink = fx.start(oneRowBatches(1));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        await("success on the retry", TIMEOUT, sink::isIdle);
        assertThat(fx.writer.attempts()).hasSize(2);
        assertThat(TestLane.drain(fx.acks)).singleElement().matches(AckRef::succeeded);
        assertThat(fx.fatals).isEmpty();
    }

    @Test
    void exhaustedRetriesFailTheAcksAndTheSinkKeepsRunning() {
        fx.writer.behave((batch, call) -> {
            if (batch.sequence() == 1) {
                throw SinkWriteException.transientFailure("replica down", null);
            }
        });
        SinkDefinition definition = oneRowBatches(1).toBuilder()
                .retry(new RetryConfig(3, Duration.ofMillis(1), Duration.ofMillis(2), 2.0, 0.5))
                .build();
        SinkRuntime sink = fx.start(definition);
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();

        await("the batch to give up", TIMEOUT, sink::isIdle);
        assertThat(fx.writer.attempts()).hasSize(3);
        assertThat(TestLane.drain(fx.acks)).singleElement().matches(ack -> !ack.succeeded());
        assertThat(fx.counter("etl.sink.batches", "outcome", "failed")).isEqualTo(1);
        assertThat(fx.counter("etl.sink.retries")).isEqualTo(2);
        assertThat(fx.fatals).isEmpty();
        assertThat(fx.budget.inFlightBytes()).isZero();

        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 10, 10))).isTrue();
        await("the next batch", TIMEOUT, () -> !fx.acks.isEmpty() && sink.isIdle());
        assertThat(TestLane.drain(fx.acks)).singleElement().matches(AckRef::succeeded);
    }

    @Test
    void permanentFailureUnderFailNotifiesTheFatalListenerAndFailsTheAcks() {
        fx.writer.behave((batch, call) -> {
            throw SinkWriteException.permanentFailure("Code: 27. Cannot parse input", null);
        });
        SinkRuntime sink = fx.start(oneRowBatches(2));
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 1, 0, 10))).isTrue();

        await("the fatal failure", TIMEOUT, () -> !fx.fatals.isEmpty() && sink.isIdle());
        assertThat(fx.fatals).singleElement().satisfies(fatal -> {
            assertThat(fatal.errorClass()).isEqualTo(ErrorClass.SINK_PERMANENT);
            assertThat(fatal.getMessage()).contains("sink 'orders'", "shard 1", "10 rows", "Cannot parse input");
        });
        assertThat(fx.writer.attempts())
                .as("permanent failures are not retried")
                .hasSize(1);
        assertThat(TestLane.drain(fx.acks)).singleElement().matches(ack -> !ack.succeeded());
        assertThat(fx.counter("etl.errors", "error_type", "sink_permanent")).isEqualTo(1);
        assertThat(fx.budget.inFlightBytes()).isZero();
    }

    @Test
    void permanentFailureUnderSkipFailsTheAcksWithoutStoppingThePipeline() {
        fx.writer.behave((batch, call) -> {
            if (call == 0) {
                throw SinkWriteException.permanentFailure("type mismatch", null);
            }
        });
        SinkRuntime sink = fx.start(
                oneRowBatches(1).toBuilder().permanentFailure(ErrorPolicy.SKIP).build());
        TestLane lane = new TestLane(fx.acks, 0);
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 0, 10))).isTrue();
        await("the skipped batch", TIMEOUT, () -> !fx.acks.isEmpty() && sink.isIdle());
        assertThat(sink.tryHandOff(lane.chunk(sink, 0, 10, 10))).isTrue();
        await("the next batch", TIMEOUT, () -> fx.writer.successes().size() == 1 && sink.isIdle());

        List<AckRef> posted = TestLane.drain(fx.acks);
        assertThat(posted).extracting(AckRef::seq).containsExactly(0L, 1L);
        assertThat(posted).extracting(AckRef::succeeded).containsExactly(false, true);
        assertThat(fx.fatals).isEmpty();
        assertThat(fx.counter("etl.sink.batches", "outcome", "failed")).isEqualTo(1);
    }
}
