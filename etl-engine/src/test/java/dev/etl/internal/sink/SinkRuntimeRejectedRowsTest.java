package dev.etl.internal.sink;

import static dev.etl.internal.sink.TestLane.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.error.ErrorPolicy;
import dev.etl.error.SinkWriteException;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rows the server refuses for their content (issue 30 item 5): the writer writes every other row and
 * reports the refused ones ({@link SinkWriteException#rejectedRows}); the engine applies the sink's
 * permanent-failure policy to those rows only, naming them by their source partition and offset. Before,
 * a permanent failure failed the whole batch: under FAIL a crash loop on the same batch, under SKIP a
 * partition stalled behind a failed head, so no policy could get past one refused row.
 */
class SinkRuntimeRejectedRowsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final SinkFixture fx = new SinkFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private SinkDefinition definition(ErrorPolicy policy) {
        return fx.definition(1, 100, Duration.ofHours(1)).toBuilder()
                .permanentFailure(policy)
                .build();
    }

    /** A chunk of partition 3's records 1000..1009, one row each, as the sink stage adds them. */
    private static Chunk chunk(SinkRuntime sink, AckQueue acks, List<AckRef> created) {
        AckRef ack = new AckRef(3, 1, 0, acks);
        created.add(ack);
        Chunk chunk = sink.newChunk(0);
        for (int i = 0; i < 10; i++) {
            chunk.rows().writeLongLE(1000 + i);
            chunk.addRows(ack, 1, 3, 1000 + i);
        }
        ack.release(true);
        return chunk;
    }

    @Test
    void underSkipTheRefusedRowsAreCountedAndTheirRecordsNamedAndTheBatchSucceeds() {
        fx.writer.behave((batch, call) -> {
            throw SinkWriteException.rejectedRows("Code: 395, throwIf", new int[] {2, 7}, null);
        });
        SinkRuntime sink = fx.start(definition(ErrorPolicy.SKIP));
        sink.partitionNames().use(p -> "orders-" + p);
        List<AckRef> created = new ArrayList<>();
        assertThat(sink.tryHandOff(chunk(sink, fx.acks, created))).isTrue();
        sink.flushNow();

        await("the ack", TIMEOUT, () -> !fx.acks.isEmpty());
        assertThat(TestLane.drain(fx.acks))
                .singleElement()
                .satisfies(ack -> assertThat(ack.succeeded())
                        .as("the other rows are written, the refused ones never can be: the batch is done")
                        .isTrue());
        assertThat(fx.counter("etl.sink.rejected.rows")).isEqualTo(2);
        assertThat(fx.counter("etl.sink.rows")).isEqualTo(8);
        assertThat(fx.fatals).isEmpty();
    }

    @Test
    void underFailThePipelineFailsNamingTheRefusedRecords() {
        fx.writer.behave((batch, call) -> {
            throw SinkWriteException.rejectedRows("Code: 395, throwIf", new int[] {2, 7}, null);
        });
        SinkRuntime sink = fx.start(definition(ErrorPolicy.FAIL));
        sink.partitionNames().use(p -> "orders-" + p);
        List<AckRef> created = new ArrayList<>();
        assertThat(sink.tryHandOff(chunk(sink, fx.acks, created))).isTrue();
        sink.flushNow();

        await("the failure", TIMEOUT, () -> !fx.fatals.isEmpty());
        assertThat(fx.fatals.get(0).getMessage())
                .contains("refused 2 of 10 rows")
                .contains("orders-3@1002, orders-3@1007")
                .contains("Code: 395");
        await("the ack", TIMEOUT, () -> !fx.acks.isEmpty());
        assertThat(TestLane.drain(fx.acks))
                .singleElement()
                .satisfies(ack -> assertThat(ack.succeeded()).isFalse());
        assertThat(fx.counter("etl.sink.rejected.rows")).isZero();
    }

    @Test
    void rowSourcesSurviveMergingChunksAndNameRowsAcrossRunsPartitionsAndHeldEmissions() {
        RowSources chunkA = new RowSources(RowSources.CHUNK_RUNS);
        chunkA.add(3, 10, 1);
        chunkA.add(3, 11, 1);
        chunkA.add(3, 13, 1); // record 12 was filtered out
        chunkA.add(-1, 0, 2); // two rows a stateful operator emitted from held data
        RowSources chunkB = new RowSources(RowSources.CHUNK_RUNS);
        chunkB.add(5, 7, 3); // one record, three rows (an exploding encoder)
        chunkB.add(3, 14, 1);
        RowSources batch = new RowSources(RowSources.BATCH_RUNS);
        batch.addAll(chunkA);
        batch.addAll(chunkB);

        long[][] expected = {{3, 10}, {3, 11}, {3, 13}, {-1, -1}, {-1, -1}, {5, 7}, {5, 7}, {5, 7}, {3, 14}};
        for (int row = 0; row < expected.length; row++) {
            assertThat(new long[] {batch.partition(row), batch.offset(row)})
                    .as("row %d", row)
                    .containsExactly(expected[row]);
        }
        assertThat(batch.partition(expected.length)).as("beyond the rows").isEqualTo(-1);
    }

    @Test
    void aChainThatFiltersEveryOtherRecordKeepsBoundedSourcesAndNamesTheRestUnknown() {
        RowSources sources = new RowSources(RowSources.CHUNK_RUNS);
        for (int i = 0; i < 4 * RowSources.CHUNK_RUNS; i++) {
            sources.add(0, 2L * i, 1);
        }
        assertThat(sources.runs()).isEqualTo(RowSources.CHUNK_RUNS);
        assertThat(sources.offset(RowSources.CHUNK_RUNS - 1)).isEqualTo(2L * (RowSources.CHUNK_RUNS - 1));
        assertThat(sources.offset(RowSources.CHUNK_RUNS))
                .as("past the runs kept")
                .isEqualTo(-1);
    }
}
