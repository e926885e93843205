package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deterministic blocks from the lane's {@link BlockChains} through a real {@link SinkRuntime}: a block is
 * one queue entry, written alone, and every chunk it counted in is counted out when it is written, so the
 * sink is idle afterwards (a shutdown drain does not wait for chunks that no batch holds).
 */
class SinkRuntimeBlockTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final int CHUNK_ROWS = 10;

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private SinkDefinition definition() {
        return SinkDefinition.builder("orders", 1, shard -> fx.writer)
                .chunks(new ChunkConfig(CHUNK_ROWS, 1 << 20))
                .batch(new BatchConfig(1_000, 1 << 20, Duration.ofHours(1)))
                .retry(new RetryConfig(0, Duration.ofMillis(1), Duration.ofMillis(5), 2.0, 0.2))
                .queueCapacity(8)
                .deterministicBlocks(true)
                .build();
    }

    /** 19, 20 and 21 rows: a last chunk partly filled, exactly full (its empty successor cut off), one row. */
    @ParameterizedTest(name = "{0} rows")
    @ValueSource(ints = {19, 20, 21})
    void aBlockIsWrittenAloneAndEveryChunkItCountedInIsCountedOut(int rows) {
        SinkDefinition definition = definition();
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        for (int i = 0; i < rows; i++) {
            Chunk chunk = blocks.chunk(0, 0);
            chunk.rows().writeLongLE(i);
            chunk.addRow(ack);
            blocks.rowAdded(0, 0, Long.BYTES);
        }
        ack.release(true);
        blocks.seal(0, 0, rows, "orders-0");
        assertThat(blocks.hasWaiting())
                .as("sealed, waiting for its end to be recorded")
                .isTrue();
        blocks.release(0, rows);
        assertThat(blocks.flush()).as("handed off as one entry").isTrue();

        await(
                "the block written and every chunk settled",
                TIMEOUT,
                () -> fx.writer.successes().size() == 1 && sink.isIdle());
        RecordingShardWriter.Written written = fx.writer.successes().get(0);
        assertThat(written.rows()).isEqualTo(rows);
        assertThat(written.values()).containsExactly(LongStream.range(0, rows).toArray());
        assertThat(TestLane.drain(fx.acks))
                .singleElement()
                .satisfies(a -> assertThat(a.succeeded()).isTrue());
    }

    /** Values of three rows each (a {@code MultiRowEncoder}'s): every row is counted, in chunks and the block. */
    @ParameterizedTest(name = "{0} values of 3 rows")
    @ValueSource(ints = {3, 7})
    void rowsAddedTogetherAreCountedOneByOne(int values) {
        SinkDefinition definition = definition();
        SinkRuntime sink = fx.start(definition);
        BlockChains blocks = new BlockChains(sink, definition);
        AckRef ack = new AckRef(0, 0, 0, fx.acks);
        for (int v = 0; v < values; v++) {
            Chunk chunk = blocks.chunk(0, 0);
            for (int r = 0; r < 3; r++) {
                chunk.rows().writeLongLE(v * 3L + r);
            }
            chunk.addRows(ack, 3);
            blocks.rowsAdded(0, 0, 3, 3 * Long.BYTES);
        }
        ack.release(true);
        blocks.seal(0, 0, values, "orders-0");
        blocks.release(0, values);
        assertThat(blocks.flush()).isTrue();

        await(
                "the block written and every chunk settled",
                TIMEOUT,
                () -> fx.writer.successes().size() == 1 && sink.isIdle());
        RecordingShardWriter.Written written = fx.writer.successes().get(0);
        assertThat(written.rows()).isEqualTo(values * 3);
        assertThat(written.values())
                .containsExactly(LongStream.range(0, values * 3L).toArray());
    }
}
