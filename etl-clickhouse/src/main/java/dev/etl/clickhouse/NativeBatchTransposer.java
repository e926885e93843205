package dev.etl.clickhouse;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The {@link InsertFormat#NATIVE} half of one {@link ClickHouseShardWriter}: transposes each batch's
 * RowBinary rows into one Native block on the calling io thread, once per attempt, with an encoder kept
 * for the next batch (one per call in flight) whose buffer is dropped after a write when it grew past
 * {@code maxRetainedBlockBytes}; times each transposition and counts the batches whose rows are not the
 * columns (those fail permanently before any request).
 */
final class NativeBatchTransposer {

    /** Sends {@code body[0, length)}, the batch's Native block. */
    @FunctionalInterface
    interface BlockSender {
        void send(byte[] body, int length) throws SinkWriteException;
    }

    private final List<ClickHouseColumn> columns;
    private final AtomicReference<NativeBlockEncoder> spareEncoder = new AtomicReference<>();
    private final long maxRetainedBlockBytes;
    private final Timer transposeDuration;
    private final Counter rejectedBatches;
    private final LongSupplier nanoClock;
    private final String sinkName;
    private final int shard;
    private final String table;

    /**
     * @throws UnsupportedNativeTypeException when {@code columns} is empty or a column's type cannot be sent
     *                                        in a Native block
     */
    NativeBatchTransposer(
            List<ClickHouseColumn> columns,
            long maxRetainedBlockBytes,
            MeterRegistry registry,
            String pipelineName,
            String sinkName,
            int shard,
            String table,
            LongSupplier nanoClock) {
        this.columns = columns;
        spareEncoder.set(NativeBlockEncoder.of(columns));
        this.maxRetainedBlockBytes = maxRetainedBlockBytes;
        Tags tags = Tags.of("pipeline", pipelineName, "sink", sinkName, "shard", Integer.toString(shard));
        this.transposeDuration = Timer.builder("etl.clickhouse.native.transpose.duration")
                .description("Transposition of one batch's RowBinary rows into its Native block, on the io "
                        + "thread, per attempt")
                .tags(tags)
                .register(registry);
        this.rejectedBatches = Counter.builder("etl.clickhouse.native.rejected.batches")
                .description("Batches failed permanently before any request because their bytes are not rows "
                        + "of the sink's columns")
                .tags(tags)
                .register(registry);
        this.nanoClock = nanoClock;
        this.sinkName = sinkName;
        this.shard = shard;
        this.table = table;
    }

    /** Transposes {@code batch} into its Native block and hands the block to {@code sender}. */
    void write(SealedBatch batch, BlockSender sender) throws SinkWriteException {
        NativeBlockEncoder encoder = spareEncoder.getAndSet(null);
        if (encoder == null) {
            encoder = NativeBlockEncoder.of(columns); // a second write in flight on this shard
        }
        try {
            int length;
            long startNs = nanoClock.getAsLong();
            try {
                length = encoder.encode(batch.bytes(), batch.byteCount(), batch.rowCount());
                transposeDuration.record(nanoClock.getAsLong() - startNs, TimeUnit.NANOSECONDS);
            } catch (RowBinaryMismatchException e) {
                rejectedBatches.increment();
                throw SinkWriteException.permanentFailure(
                        "ClickHouse sink '" + sinkName + "' shard " + shard
                                + " table " + table + ": batch " + batch.sequence() + " (" + batch.rowCount()
                                + " rows, "
                                + batch.byteCount() + " bytes) cannot be sent in the Native format: " + e.getMessage(),
                        e);
            }
            sender.send(encoder.block(), length);
        } finally {
            encoder.trim(maxRetainedBlockBytes);
            spareEncoder.set(encoder);
        }
    }

    /** Bytes of the block buffer kept for the next batch (0 when dropped). */
    int retainedBlockBytes() {
        NativeBlockEncoder e = spareEncoder.get();
        return e == null ? 0 : e.capacity();
    }
}
