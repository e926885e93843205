package dev.etl.clickhouse;

import java.util.ArrayList;
import java.util.List;

/**
 * The column lists a ClickHouse sink's rows can have, numbered: a <em>layout</em> is the index of one list
 * ({@link dev.etl.sink.RowEncoder#layout()}, {@link dev.etl.sink.SealedBatch#layout()}). Layout 0 is the
 * list the sink starts with (validated against the table at startup); a column added to the table while
 * the pipeline runs (auto-evolve) registers a new list, and the encoders switch to it between source
 * batches. The sink's shard writers insert each batch with the columns of its layout ({@code INSERT INTO t
 * (a, b, …)}), so rows encoded before the switch are still inserted with the old list, rows after it with
 * the new one, never mixed in one insert.
 *
 * <p>Thread-safe and append-only: a layout, once registered, never changes or goes away. Reads
 * ({@link #columns(int)}, {@link #latest()}) take no lock (a copy-on-write array in a volatile field);
 * {@link #register} is rare and synchronized.
 */
public final class ColumnLayouts {
    /** Every layout's columns, by id (an immutable list); replaced, never modified, by {@link #register}. */
    private volatile List<List<ClickHouseColumn>> layouts;

    private ColumnLayouts(List<ClickHouseColumn> initial) {
        this.layouts = List.of(initial);
    }

    /**
     * Layouts whose layout 0 is {@code initialColumns} (in the encoder's order; none: inserts without a
     * column list).
     */
    public static ColumnLayouts of(List<ClickHouseColumn> initialColumns) {
        return new ColumnLayouts(List.copyOf(initialColumns));
    }

    /**
     * Registers {@code columns} (in the order the rows carry them) as a layout.
     *
     * @return a new layout id ({@link #latest()} from now on), or the id of an equal list registered before
     * @throws IllegalArgumentException when {@code columns} names a column twice
     */
    public synchronized int register(List<ClickHouseColumn> columns) {
        List<ClickHouseColumn> copy = List.copyOf(columns);
        if (copy.stream().map(ClickHouseColumn::name).distinct().count() != copy.size()) {
            throw new IllegalArgumentException("a column layout names a column twice: " + copy);
        }
        List<List<ClickHouseColumn>> current = layouts;
        int existing = current.indexOf(copy);
        if (existing >= 0) {
            return existing;
        }
        List<List<ClickHouseColumn>> next = new ArrayList<>(current.size() + 1);
        next.addAll(current);
        next.add(copy);
        layouts = List.copyOf(next);
        return current.size();
    }

    /**
     * The columns of {@code layout}, in the order its rows carry them.
     *
     * @throws IllegalArgumentException naming {@code layout} when it was never registered
     */
    public List<ClickHouseColumn> columns(int layout) {
        List<List<ClickHouseColumn>> current = layouts;
        if (layout < 0 || layout >= current.size()) {
            throw new IllegalArgumentException(
                    "unknown column layout " + layout + ": the layouts registered are 0 to " + (current.size() - 1));
        }
        return current.get(layout);
    }

    /** The id of the layout registered last (0 until one is). */
    public int latest() {
        return layouts.size() - 1;
    }

    @Override
    public String toString() {
        List<List<ClickHouseColumn>> current = layouts;
        StringBuilder sb = new StringBuilder("ColumnLayouts[");
        for (int id = 0; id < current.size(); id++) {
            sb.append(id == 0 ? "" : ", ").append(id).append('=').append(current.get(id));
        }
        return sb.append(']').toString();
    }
}
