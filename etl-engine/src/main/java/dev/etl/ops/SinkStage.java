package dev.etl.ops;

import dev.etl.record.Collector;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.internal.sink.Chunk;
import dev.etl.sink.ChunkConfig;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.Router;

/**
 * The terminal stage: routes a value to a shard, encodes it as one row into that shard's open chunk,
 * makes the chunk hold the record's ack, and hands the chunk off when it is full. A failed encode is
 * cut back out of the chunk, so the chunk's bytes and acks are exactly those of its good rows.
 */
final class SinkStage<T> implements Collector<T> {
    private final RowEncoder<? super T> encoder;
    private final Router<? super T> router;
    private final ChunkOutbox outbox;
    private final ChunkConfig limits;
    private final int shardCount;
    private final MutableRecordMeta meta;
    private final StageErrorPolicy errors;
    private final String sinkName;

    SinkStage(RowEncoder<? super T> encoder, Router<? super T> router, ChunkOutbox outbox, ChunkConfig limits,
            MutableRecordMeta meta, StageErrorPolicy errors, String sinkName) {
        this.encoder = encoder;
        this.router = router;
        this.outbox = outbox;
        this.limits = limits;
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
        Chunk chunk = outbox.chunk(shard);
        RowBuffer rows = chunk.rows();
        int mark = rows.length();
        try {
            encoder.encode(value, meta, rows);
        } catch (FatalPipelineException e) {
            rows.truncate(mark);
            throw e;
        } catch (Exception e) {
            rows.truncate(mark);
            errors.fail(e);
            return;
        }
        try {
            chunk.addRow(ack);
            outbox.rowAdded(shard, limits);
        } catch (RuntimeException e) {
            // Engine bookkeeping, not user code: a bug. Wrapped so that stages only ever throw
            // FatalPipelineException and upstream stages never mistake it for their own failure.
            throw new FatalPipelineException(ErrorClass.ENCODE,
                    "sink stage '" + errors.stage() + "' could not add a row to sink '" + sinkName + "' shard " + shard
                            + ": " + e, e);
        }
    }

    private FatalPipelineException noAck() {
        return new FatalPipelineException(ErrorClass.OPERATOR, "a value reached sink stage '" + errors.stage()
                + "' outside of any record: a stateful operator emitted it from flush() without holding the acks "
                + "of what it buffered (HeldAcks.holdCurrent, then HeldAcks.emit), so its source offsets may "
                + "already be committed; see StatefulOperator", null);
    }

    private FatalPipelineException badShard(int shard) {
        return new FatalPipelineException(ErrorClass.ENCODE, "router of sink stage '" + errors.stage() + "' returned shard "
                + shard + " for sink '" + sinkName + "', which has shards [0, " + shardCount + ") (router bug) at "
                + errors.describePosition(), null);
    }
}
