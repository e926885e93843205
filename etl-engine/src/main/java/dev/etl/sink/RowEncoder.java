package dev.etl.sink;

import dev.etl.record.RecordMeta;

/**
 * Writes one value as one row of ClickHouse RowBinary (or the sink's row format) into a reusable
 * buffer. Called on the lane thread, once per row, so it must not allocate, block or lock.
 *
 * <p>Column order is the wire contract: it must match the target table (startup validation checks
 * it). On failure, throw; the sink stage cuts the partial row back out of the buffer and applies the
 * encode stage's {@link dev.etl.error.ErrorPolicy}.
 *
 * <p><b>Column layouts.</b> An encoder whose columns can change while the pipeline runs (a mapping
 * recompiled after the table gained a column) numbers each column list it writes: a <em>layout</em>
 * (the sink maps the number to the column list its inserts name, e.g. a ClickHouse sink's
 * {@code ColumnLayouts}). The lane asks {@link #requestedLayout()} on its own thread between source
 * batches (and before its operators' timers and a flush emit rows); when it differs from
 * {@link #layout()}, the lane first seals every open deterministic block and hands off every open chunk
 * of this sink that holds rows of the old layout, then calls {@link #adoptLayout(int)}. So a chunk, a
 * block and a sealed batch ({@link SealedBatch#layout()}) hold rows of one layout only, and every row is
 * encoded with the layout its chunk says. An encoder that never evolves keeps the defaults (layout 0
 * forever) and costs nothing: the lane's check is one call and one int compare per source batch.
 *
 * <p>The layout is the encoder's per lane: an evolving encoder must be built per lane (in the
 * {@code ChainFactory}), as the transcoders are. When several sink stages of one lane write the same sink
 * with encoders that ask for different layouts, the lane defers the switch (keeps every one of them at the
 * layout the sink's open chunks have) until they all ask for the same one; until then each keeps writing
 * its current layout, which must stay insertable.
 *
 * @param <T> the value type arriving at the sink
 */
@FunctionalInterface
public interface RowEncoder<T> {
    /**
     * Appends the row for {@code value} to {@code out}.
     *
     * @param meta source metadata of the record the value came from (valid during this call only)
     */
    void encode(T value, RecordMeta meta, RowBuffer out) throws Exception;

    /**
     * The column layout of the rows this encoder writes now: 0 unless the encoder evolves. Called on the
     * lane thread.
     */
    default int layout() {
        return 0;
    }

    /**
     * Asked by the lane on its own thread between source batches (not per record): the layout the encoder
     * wants to write from now on. When it differs from {@link #layout()}, the lane first seals every open
     * block and hands off every open chunk of this sink stage that holds rows of the old layout, then calls
     * {@link #adoptLayout(int) adoptLayout(requested)}. Must be cheap (one volatile read): it is called once
     * per source batch. The lane may defer the switch (see the class comment); the encoder then keeps
     * writing {@link #layout()}.
     */
    default int requestedLayout() {
        return layout();
    }

    /**
     * Switches to {@code layout} (called on the lane thread right after the seal); from now on
     * {@link #layout()} returns it and every row is written in it. An exception thrown here fails the
     * pipeline (the lane cannot know which layout the next rows would have).
     *
     * @throws UnsupportedOperationException by default, for any layout but the current one
     */
    default void adoptLayout(int layout) {
        if (layout != layout()) {
            throw new UnsupportedOperationException(
                    "encoder " + this + " writes layout " + layout() + " only and cannot adopt layout " + layout);
        }
    }
}
