package dev.etl.test.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The properties every run of a {@link LayoutHarness} must have, whatever its flips and batching. */
final class PropertyChecks {
    private PropertyChecks() {}

    /**
     * Every batch single-layout (each of its rows was encoded in the batch's layout), every retry of a batch
     * the same layout, token and rows, every row {@code <partition>:<i>} ({@code i < perPartition}) delivered
     * exactly once, layouts monotonic per partition. Returns the layout each row was delivered in.
     */
    static Map<String, Integer> check(LayoutHarness h, int perPartition, int partitions) {
        Map<String, LayoutHarness.Write> attempts = new HashMap<>();
        for (LayoutHarness.Write w : h.writes()) {
            for (String row : w.rows()) {
                assertThat(LayoutHarness.layoutOf(row))
                        .as("row %s in shard %d batch %d of layout %d", row, w.shard(), w.sequence(), w.layout())
                        .isEqualTo(w.layout());
            }
            LayoutHarness.Write first = attempts.putIfAbsent(w.shard() + "/" + w.sequence(), w);
            if (first != null) {
                assertThat(w.layout()).as("a retry keeps its layout").isEqualTo(first.layout());
                assertThat(w.token()).as("a retry keeps its token").isEqualTo(first.token());
                assertThat(w.rows()).as("a retry keeps its rows").isEqualTo(first.rows());
            }
        }
        Map<String, List<Integer>> delivered = h.delivered();
        Map<String, Integer> layouts = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            int previous = 0;
            for (int i = 0; i < perPartition; i++) {
                String value = p + ":" + i;
                List<Integer> got = delivered.get(value);
                assertThat(got)
                        .as("row %s delivered exactly once", value)
                        .isNotNull()
                        .hasSize(1);
                int layout = got.get(0);
                assertThat(layout)
                        .as("layouts monotonic in partition %d at row %d", p, i)
                        .isGreaterThanOrEqualTo(previous);
                previous = layout;
                layouts.put(value, layout);
            }
        }
        assertThat(delivered.keySet().stream()
                        .filter(v -> Integer.parseInt(v.substring(v.indexOf(':') + 1)) < perPartition))
                .as("no other rows (beyond sentinels)")
                .hasSize(perPartition * partitions);
        return layouts;
    }
}
