package dev.etl.internal.ops;

import dev.etl.deser.Deserializer;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.internal.record.MutableRecordMeta;
import dev.etl.ops.Chain;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.source.PartitionBatch;

/**
 * The built chain: the one interface call per batch from the lane lands here; the loop below then
 * calls the deserializer, which pushes straight into the first stage.
 */
public final class ChainHead<T> implements Chain {
    static final String DESERIALIZE_STAGE = "deserialize";

    private final LaneContext context;
    private final MutableRecordMeta meta;
    private final Deserializer<T> deserializer;
    private final Collector<? super T> first;
    private final ErrorPolicy badPayloads;
    private final ProcessStage<?, ?>[] stateful;
    private int opened;

    ChainHead(
            LaneContext context,
            Deserializer<T> deserializer,
            Collector<? super T> first,
            ErrorPolicy badPayloads,
            ProcessStage<?, ?>[] stateful) {
        this.context = context;
        this.meta = context.meta();
        this.deserializer = deserializer;
        this.first = first;
        this.badPayloads = badPayloads;
        this.stateful = stateful;
    }

    @Override
    public void open() {
        if (opened != 0) {
            throw new IllegalStateException("chain is already open");
        }
        ProcessStage<?, ?>[] stages = stateful;
        for (int i = 0; i < stages.length; i++) {
            stages[i].open();
            // Counted only once open returned, so close() closes exactly the opened ones.
            opened = i + 1;
        }
    }

    @Override
    public void onBatch(PartitionBatch batch) {
        MutableRecordMeta meta = this.meta;
        Deserializer<T> deserializer = this.deserializer;
        Collector<? super T> first = this.first;
        int partition = batch.partition();
        LaneContext context = this.context;
        while (batch.next()) {
            long offset = batch.offset();
            context.beforeRecord(partition, offset); // may end a deterministic block before this record
            Payload key = batch.key();
            Payload value = batch.value();
            meta.record(partition, offset, batch.timestampMs(), key, value);
            try {
                deserializer.deserialize(key, value, meta, first);
            } catch (FatalPipelineException e) {
                // A FAIL stage downstream (stages throw nothing else), or the deserializer on purpose.
                throw located(e, offset);
            } catch (Exception e) {
                deserializationFailed(e, offset);
            }
        }
        // The key hash is computed on demand; pin the last record's before its key view moves on, so
        // whatever reads it between batches (an operator emitting held rows) sees what it always saw.
        meta.keyHash();
    }

    /**
     * A deserializer's fatal failure caused by a {@link DeserializationException} it could not place
     * (it knows no partition name): rethrown with the partition as the source names it and the offset.
     */
    private FatalPipelineException located(FatalPipelineException e, long offset) {
        if (e.getCause() instanceof DeserializationException
                && ((DeserializationException) e.getCause()).partitionName() == null) {
            DeserializationException at = ((DeserializationException) e.getCause())
                    .at(DESERIALIZE_STAGE, context.describePartition(meta.partition()), offset);
            FatalPipelineException located = new FatalPipelineException(e.errorClass(), at.getMessage(), at);
            located.setStackTrace(e.getStackTrace());
            return located;
        }
        return e;
    }

    private void deserializationFailed(Exception cause, long offset) {
        String partitionName = context.describePartition(meta.partition());
        DeserializationException failure = cause instanceof DeserializationException
                ? ((DeserializationException) cause).at(DESERIALIZE_STAGE, partitionName, offset)
                : new DeserializationException(
                        DESERIALIZE_STAGE, partitionName, offset, -1, String.valueOf(cause), cause);
        if (badPayloads == ErrorPolicy.SKIP) {
            context.skipped(failure);
            return;
        }
        if (badPayloads == ErrorPolicy.DEAD_LETTER) {
            context.deadLettered(failure);
            return;
        }
        throw new FatalPipelineException(ErrorClass.DESERIALIZATION, failure.getMessage(), failure);
    }

    @Override
    public void flush() {
        ProcessStage<?, ?>[] stages = stateful;
        int count = opened;
        for (int i = 0; i < count; i++) {
            stages[i].flush();
        }
    }

    @Override
    public void close() {
        int count = opened;
        opened = 0;
        FatalPipelineException failure = null;
        for (int i = count - 1; i >= 0; i--) {
            ProcessStage<?, ?> stage = stateful[i];
            try {
                stage.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new FatalPipelineException(
                            ErrorClass.OPERATOR, "stage '" + stage.stageName() + "' failed to close: " + e, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
