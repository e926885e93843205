package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.BlockChains;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.Collector;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.Router;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;

/**
 * The terminal stage: routes a value to a shard, encodes it as one row (or, with a
 * {@link MultiRowEncoder}, as many as it writes, zero included) into that shard's open chunk,
 * makes the chunk hold the record's ack, and hands the chunk off when it is full. A failed encode is
 * cut back out of the chunk, so the chunk's bytes and acks are exactly those of its good rows.
 */
public final class SinkStage<T> implements Collector<T> {
    private final RowEncoder<? super T> encoder;
    /** {@link #encoder} when it writes any number of rows per value, else null. */
    private final MultiRowEncoder<? super T> multiRow;

    private final Router<? super T> router;
    private final ChunkOutbox outbox;
    /** The sink's deterministic blocks, or null when it writes merged batches. */
    private final BlockChains blocks;

    private final int shardCount;
    private final MutableRecordMeta meta;
    private final StageErrorPolicy errors;
    private final String sinkName;
    /** The encoder is the sink's own (the chain did not choose its row type): say so on a type mismatch. */
    private final boolean sinksEncoder;

    SinkStage(
            RowEncoder<? super T> encoder,
            Router<? super T> router,
            ChunkOutbox outbox,
            MutableRecordMeta meta,
            StageErrorPolicy errors,
            String sinkName,
            boolean sinksEncoder) {
        this.encoder = encoder;
        this.multiRow = encoder instanceof MultiRowEncoder<? super T> m ? m : null;
        this.router = router;
        this.outbox = outbox;
        this.blocks = outbox.blocks();
        this.sinksEncoder = sinksEncoder;
        this.shardCount = outbox.shardCount();
        this.meta = meta;
        this.errors = errors;
        this.sinkName = sinkName;
    }

    @Override
    public void collect(T value) {
        MutableRecordMeta meta = this.meta;
        AckRef ack = meta.ack();
        if (ack == null) {
            throw noAck();
        }
        int shard;
        try {
            shard = router.shard(value, meta, shardCount);
        } catch (FatalPipelineException e) {
            throw e;
        } catch (RuntimeException e) {
            errors.fail("router failed: " + e, e);
            return;
        }
        if (shard < 0 || shard >= shardCount) {
            throw badShard(shard);
        }
        ChunkOutbox outbox = this.outbox;
        // A row of the current record goes into its partition's open deterministic block; a row emitted
        // from held acks (a stateful operator's kept data, emitted later, from a timer or from flush)
        // belongs to no offset range of the current position, and goes into an ordinary, merged chunk.
        // batchAck() is null inside such an emission even when the one batch held is the current one:
        // otherwise where the row went would depend on the poll boundaries, and a replay polled
        // differently would rebuild the block (same range, same token) with other rows (issue 30).
        BlockChains blocks = this.blocks;
        int partition = meta.partition();
        boolean inBlock = blocks != null && ack == meta.batchAck();
        Chunk chunk = inBlock ? blocks.chunk(shard, partition) : outbox.chunk(shard);
        RowBuffer rows = chunk.rows();
        int mark = rows.length();
        int count = 1;
        try {
            if (multiRow != null) {
                count = multiRow.encodeRows(value, meta, rows);
            } else {
                encoder.encode(value, meta, rows);
            }
        } catch (FatalPipelineException e) {
            rows.truncate(mark);
            throw e;
        } catch (ClassCastException e) {
            rows.truncate(mark);
            errors.fail(new ClassCastException("sink '" + sinkName + "' "
                    + (sinksEncoder ? "writes its rows with " + "its own encoder, which" : "encoder")
                    + " cannot encode a " + value.getClass().getName()
                    + " (the chain delivers that type to it): " + e.getMessage()));
            return;
        } catch (Exception e) {
            rows.truncate(mark);
            errors.fail(e);
            return;
        }
        if (count <= 0) {
            if (count < 0 || rows.length() != mark) {
                rows.truncate(mark);
                throw new FatalPipelineException(
                        ErrorClass.ENCODE,
                        "encoder " + encoder + " of sink '" + sinkName + "' returned " + count + " rows"
                                + (count == 0 ? " but wrote bytes" : "") + " (encoder bug) at "
                                + errors.describePosition(),
                        null);
            }
            return; // the encoder filtered the value out: it has no row, so nothing holds its ack
        }
        try {
            // Where the rows came from (a held emission's have no single record): names a refused row.
            chunk.addRows(ack, count, meta.inHeldEmission() ? -1 : partition, meta.offset());
            if (inBlock) {
                blocks.rowsAdded(shard, partition, count, rows.length() - mark);
            } else {
                outbox.rowAdded(shard);
            }
        } catch (RuntimeException e) {
            // Engine bookkeeping, not user code: a bug. Wrapped so that stages only ever throw
            // FatalPipelineException and upstream stages never mistake it for their own failure.
            throw new FatalPipelineException(
                    ErrorClass.ENCODE,
                    "sink stage '" + errors.stage() + "' could not add a row to sink '" + sinkName + "' shard " + shard
                            + ": " + e,
                    e);
        }
    }

    private FatalPipelineException noAck() {
        return new FatalPipelineException(
                ErrorClass.OPERATOR,
                "a value reached sink stage '" + errors.stage()
                        + "' outside of any record: a stateful operator emitted it from flush() without holding the acks "
                        + "of what it buffered (HeldAcks.holdCurrent, then HeldAcks.emit), so its source offsets may "
                        + "already be committed; see StatefulOperator",
                null);
    }

    private FatalPipelineException badShard(int shard) {
        return new FatalPipelineException(
                ErrorClass.ENCODE,
                "router of sink stage '" + errors.stage() + "' returned shard "
                        + shard + " for sink '" + sinkName + "', which has shards [0, " + shardCount
                        + ") (router bug) at "
                        + errors.describePosition(),
                null);
    }
}
