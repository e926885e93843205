package dev.etl.test.pipeline;

import static dev.etl.test.pipeline.PipelineFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.sink.BatchConfig;
import dev.etl.sink.ChunkConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized harness of column layouts against a reference model: random records over random
 * partitions and lanes, random flip points, random batch limits, lingers, chunk sizes and poll sizes,
 * deterministic blocks on or off, transient write failures. The model: a row is delivered exactly once, in
 * a batch whose every row has the batch's layout; a retry keeps its batch's layout; per partition the
 * layouts never go down; a row pushed after a flip is encoded in that layout or a later one, never in a
 * layout beyond the last one asked for.
 *
 * <p>Runs {@link #SCENARIOS} scenarios (more with {@code -Dlayouts.scenarios=…}) from one seed, printed on
 * failure; replay with {@code -Dlayouts.seed=…}.
 */
class ColumnLayoutsPropertyTest {
    private static final int SCENARIOS = Integer.getInteger("layouts.scenarios", 8);

    @Test
    void everyRowOnceInABatchOfItsOwnLayoutWithLayoutsMonotonicPerPartition() throws Exception {
        long seed = Long.getLong("layouts.seed", System.nanoTime());
        Random seeds = new Random(seed);
        for (int scenario = 0; scenario < SCENARIOS; scenario++) {
            long scenarioSeed = seeds.nextLong();
            try {
                run(scenarioSeed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "scenario failed; replay with -Dlayouts.seed=" + seed + " (scenario " + scenario + ", seed "
                                + scenarioSeed + "): " + e.getMessage(),
                        e);
            }
        }
    }

    private static void run(long seed) throws Exception {
        Random random = new Random(seed);
        int lanes = 1 + random.nextInt(2);
        int partitions = lanes + random.nextInt(3);
        int shards = 1 + random.nextInt(3);
        boolean blocks = random.nextBoolean();
        BatchConfig batch =
                new BatchConfig(5 + random.nextInt(400), 8L << 20, Duration.ofMillis(5 + random.nextInt(80)));
        ChunkConfig chunks = new ChunkConfig(1 + random.nextInt(64), 1 << 20);
        int perPartition = 50 + random.nextInt(300);
        int flips = 1 + random.nextInt(3);
        boolean buffered = random.nextInt(3) == 0;
        try (LayoutHarness h = new LayoutHarness(
                lanes,
                shards,
                blocks,
                batch,
                chunks,
                1 + random.nextInt(60),
                random.nextInt(3) == 0 ? 20 : 0,
                random.nextLong(),
                buffered)) {
            h.start();
            for (int lane = 0; lane < lanes; lane++) {
                int owner = lane;
                h.handle.assign(
                        lane,
                        java.util.stream.IntStream.range(0, partitions)
                                .filter(p -> p % lanes == owner)
                                .toArray());
            }
            int total = perPartition * partitions;
            int[] flipAt = new int[flips];
            for (int f = 0; f < flips; f++) {
                flipAt[f] = random.nextInt(total);
            }
            java.util.Arrays.sort(flipAt);
            // The model: the layout asked for when each row was pushed (its lowest possible layout).
            Map<String, Integer> askedAtPush = new HashMap<>();
            int next = 0;
            int[] sent = new int[partitions];
            for (int n = 0; n < total; n++) {
                while (next < flips && flipAt[next] == n) {
                    h.flip();
                    next++;
                }
                int p = random.nextInt(partitions);
                if (sent[p] == perPartition) {
                    p = firstNotFull(sent, perPartition);
                }
                askedAtPush.put(p + ":" + sent[p], h.requested.get());
                h.push(p, sent[p]++);
                if (random.nextInt(200) == 0) {
                    Thread.sleep(random.nextInt(20));
                }
            }
            if (buffered) {
                // The operator keeps its lane's last value until another comes (and the ack of that value's
                // poll batch, so commits stop short of it): a sentinel per partition lets every row out.
                for (int p = 0; p < partitions; p++) {
                    h.push(p, perPartition);
                }
                assertThat(PipelineFixture.eventually(() -> realRows(h, perPartition) >= total, WAIT))
                        .as("every row written")
                        .isTrue();
            } else {
                for (int p = 0; p < partitions; p++) {
                    assertThat(h.handle.awaitCommitted(p, perPartition, WAIT))
                            .as("partition %d committed", p)
                            .isTrue();
                }
            }
            Map<String, Integer> layouts = PropertyChecks.check(h, perPartition, partitions);
            int last = h.requested.get();
            layouts.forEach((value, layout) -> {
                assertThat(layout)
                        .as("row %s pushed when layout %d was asked for", value, askedAtPush.get(value))
                        .isBetween(askedAtPush.get(value), last);
            });
        }
    }

    /** Rows written, sentinels aside. */
    private static long realRows(LayoutHarness h, int perPartition) {
        return h.delivered().keySet().stream()
                .filter(v -> Integer.parseInt(v.substring(v.indexOf(':') + 1)) < perPartition)
                .count();
    }

    private static int firstNotFull(int[] sent, int perPartition) {
        for (int p = 0; p < sent.length; p++) {
            if (sent[p] < perPartition) {
                return p;
            }
        }
        throw new IllegalStateException("every partition is full");
    }
}
