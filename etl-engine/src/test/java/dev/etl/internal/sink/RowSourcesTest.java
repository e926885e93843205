package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link RowSources} against a reference model (a list of every row's partition and offset), on seeded
 * random sequences: consecutive records of one partition (the common run), gaps (a filter), other
 * partitions, records of several rows (a fan-out encoder), rows of no single record (held data), merges
 * of chunks into batches ({@link RowSources#addAll}), reads between adds, clears, and the bound on runs
 * (rows beyond it are unknown).
 */
class RowSourcesTest {
    private static final int SEEDS = 300;

    /** Where a row came from, as the reference keeps it; offset -1 when unknown. */
    private record Row(int partition, long offset) {
        static final Row UNKNOWN = new Row(-1, -1);
    }

    /** A RowSources and what it should answer. */
    private static final class Model {
        final RowSources sources;
        final boolean bounded;
        final List<Row> rows = new ArrayList<>();

        Model(int maxRuns, boolean bounded) {
            sources = new RowSources(maxRuns);
            this.bounded = bounded;
        }

        void add(int partition, long offset, int count) {
            sources.add(partition, offset, count);
            for (int i = 0; i < count; i++) {
                rows.add(partition < 0 ? Row.UNKNOWN : new Row(partition, offset));
            }
        }

        void addAll(Model chunk) {
            sources.addAll(chunk.sources);
            rows.addAll(chunk.rows);
        }

        void clear() {
            sources.clear();
            rows.clear();
        }

        /**
         * Every row is named by its record, or unknown: rows of no single record always, and once the
         * runs ran out (bounded only) every row from some row on; never a wrong record.
         */
        void check(long seed) {
            int firstLost = -1;
            for (int row = 0; row < rows.size(); row++) {
                Row expected = rows.get(row);
                Row actual = new Row(sources.partition(row), sources.offset(row));
                if (actual.equals(Row.UNKNOWN) && !expected.equals(Row.UNKNOWN)) {
                    assertThat(bounded)
                            .as("seed %d row %d of %d: %s lost with runs to spare", seed, row, rows.size(), expected)
                            .isTrue();
                    if (firstLost < 0) {
                        firstLost = row;
                    }
                    continue;
                }
                assertThat(firstLost < 0 || actual.equals(Row.UNKNOWN))
                        .as("seed %d row %d: known after row %d was lost to the bound", seed, row, firstLost)
                        .isTrue();
                assertThat(actual)
                        .as("seed %d row %d of %d", seed, row, rows.size())
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void everyRowIsNamedByItsRecordOrUnknown() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            boolean bounded = random.nextBoolean();
            int maxRuns = bounded ? 1 + random.nextInt(16) : RowSources.BATCH_RUNS;
            Model chunk = new Model(maxRuns, bounded);
            Model batch = new Model(bounded ? 2 * maxRuns : RowSources.BATCH_RUNS, bounded);
            long[] next = new long[4];
            int steps = 1 + random.nextInt(400);
            for (int step = 0; step < steps; step++) {
                int kind = random.nextInt(100);
                int partition = random.nextInt(4);
                if (kind < 60) {
                    chunk.add(partition, next[partition]++, 1); // the common row
                } else if (kind < 70) {
                    next[partition] += 1 + random.nextInt(3); // a filter dropped records
                    chunk.add(partition, next[partition]++, 1);
                } else if (kind < 80) {
                    chunk.add(partition, next[partition]++, 2 + random.nextInt(3)); // a fan-out record
                } else if (kind < 85) {
                    chunk.add(-1, -1, 1 + random.nextInt(3)); // held data: no single record
                } else if (kind < 88) {
                    chunk.check(seed); // reads close the open run; adds go on after them
                } else if (kind < 96) {
                    batch.addAll(chunk); // the chunk merged into a batch, then reused
                    chunk.clear();
                } else {
                    batch.check(seed);
                    batch.clear();
                }
            }
            chunk.check(seed);
            batch.addAll(chunk);
            batch.check(seed);
        }
    }

    @Test
    void consecutiveRecordsOfOnePartitionAreOneRun() {
        RowSources sources = new RowSources(RowSources.CHUNK_RUNS);
        for (long offset = 1_200; offset < 1_300; offset++) {
            sources.add(3, offset, 1);
        }
        assertThat(sources.runs()).isEqualTo(1);
        assertThat(sources.partition(57)).isEqualTo(3);
        assertThat(sources.offset(57)).isEqualTo(1_257);
        sources.add(3, 1_300, 2); // a record of two rows starts a run of its own
        sources.add(3, 1_301, 1);
        assertThat(sources.runs()).isEqualTo(3);
        assertThat(sources.offset(100)).isEqualTo(1_300);
        assertThat(sources.offset(101)).isEqualTo(1_300);
        assertThat(sources.offset(102)).isEqualTo(1_301);
    }
}
