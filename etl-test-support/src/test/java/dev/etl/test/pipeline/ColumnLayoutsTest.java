package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Column layouts through the real lanes and sink runtime (issue 33 item 3): an encoder whose requested
 * layout changes mid-stream. Every sealed batch has one layout and its rows were all encoded in it; the
 * rows encoded before the switch are in layout-0 batches, the others in layout-1 batches; no row is lost or
 * written twice; with deterministic blocks the switch seals the open blocks (recorded like any other seal).
 */
class ColumnLayoutsTest {
    private static final int PARTITIONS = 4;
    private static final int SHARDS = 2;
    private static final int PER_PHASE = 300;

    @ParameterizedTest(name = "deterministic blocks {0}")
    @ValueSource(booleans = {false, true})
    void rowsBeforeTheFlipAreInLayoutZeroBatchesAndRowsAfterItInLayoutOneBatches(boolean blocks) throws Exception {
        // Long linger and large batches: without the layout rule the worker would merge both phases.
        BatchConfig batch = new BatchConfig(100_000, 8L << 20, Duration.ofMillis(blocks ? 40 : 400));
        try (LayoutHarness h =
                new LayoutHarness(2, SHARDS, blocks, batch, new ChunkConfig(16, 1 << 20), 37, 0, 1, false)) {
            h.start();
            for (int lane = 0; lane < 2; lane++) {
                h.handle.assign(lane, lane, lane + 2);
            }
            for (int i = 0; i < PER_PHASE; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    h.push(p, i);
                }
            }
            // Every record of the first phase encoded: the lanes have polled past them.
            assertThat(PipelineFixture.eventually(() -> h.delivered().size() == PARTITIONS * PER_PHASE, WAIT))
                    .isTrue();
            double sealedBefore = h.counter("etl.checkpoint.sealed.blocks");
            h.flip();
            for (int i = PER_PHASE; i < 2 * PER_PHASE; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    h.push(p, i);
                }
            }
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(h.handle.awaitCommitted(p, 2 * PER_PHASE, WAIT))
                        .as("partition %d committed", p)
                        .isTrue();
            }

            List<LayoutHarness.Write> writes = h.writes();
            for (LayoutHarness.Write w : writes) {
                assertThat(w.rows())
                        .allSatisfy(row -> assertThat(LayoutHarness.layoutOf(row))
                                .as("row %s in batch %s of layout %d", row, w.sequence(), w.layout())
                                .isEqualTo(w.layout()));
            }
            assertThat(writes).extracting(LayoutHarness.Write::layout).contains(0, 1);
            Map<String, List<Integer>> delivered = h.delivered();
            assertThat(delivered).hasSize(2 * PARTITIONS * PER_PHASE);
            delivered.forEach((value, layouts) -> {
                int i = Integer.parseInt(value.substring(value.indexOf(':') + 1));
                assertThat(layouts).as("row %s, delivered once", value).hasSize(1);
                assertThat(layouts.get(0)).as("layout of row %s", value).isEqualTo(i < PER_PHASE ? 0 : 1);
            });
            if (blocks) {
                assertThat(writes).allSatisfy(w -> assertThat(w.token()).startsWith("b"));
                assertThat(h.counter("etl.checkpoint.sealed.blocks")).isGreaterThan(sealedBefore);
            }
        }
    }

    @Test
    void aFlipWhileRecordsFlowKeepsEveryBatchSingleLayoutAndLayoutsMonotonicPerPartition() throws Exception {
        BatchConfig batch = new BatchConfig(500, 8L << 20, Duration.ofMillis(30));
        try (LayoutHarness h =
                new LayoutHarness(1, SHARDS, true, batch, new ChunkConfig(8, 1 << 20), 11, 0, 2, false)) {
            h.start();
            h.handle.assign(0, 0, 1, 2, 3);
            int records = 2_000;
            for (int i = 0; i < records; i++) {
                h.push(i % PARTITIONS, i / PARTITIONS);
                if (i % 500 == 250) {
                    h.flip();
                }
            }
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(h.handle.awaitCommitted(p, records / PARTITIONS, WAIT))
                        .isTrue();
            }
            PropertyChecks.check(h, records / PARTITIONS, PARTITIONS);
        }
    }
}
