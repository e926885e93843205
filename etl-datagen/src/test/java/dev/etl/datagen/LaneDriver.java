package dev.etl.datagen;

import dev.etl.source.PartitionBatch;
import dev.etl.source.PartitionListener;
import dev.etl.source.SourceLane;
import java.util.ArrayList;
import java.util.List;

/** Opens a datagen lane without a pipeline and records what its polls deliver (tests). */
final class LaneDriver implements PartitionListener {
    record Delivered(int partition, long offset, byte[] key, byte[] value, long timestampMs) {}

    final SourceLane lane;
    final List<int[]> assignments = new ArrayList<>();
    final List<Delivered> records = new ArrayList<>();
    final List<Integer> batchSizes = new ArrayList<>();

    LaneDriver(DatagenSource source, int index) {
        this.lane = source.openLane(index, this);
    }

    /** One poll with timeout 0; returns the records it delivered. */
    List<Delivered> poll() {
        return poll(0);
    }

    List<Delivered> poll(long timeoutMs) {
        int before = records.size();
        lane.poll(timeoutMs, this::onBatch);
        return List.copyOf(records.subList(before, records.size()));
    }

    /** Polls until a poll delivers nothing; returns everything delivered. */
    List<Delivered> drain() {
        int before = records.size();
        while (!poll().isEmpty()) {
            // keep polling
        }
        return List.copyOf(records.subList(before, records.size()));
    }

    private void onBatch(PartitionBatch batch) {
        batchSizes.add(batch.size());
        long expected = batch.lastOffset() - batch.size() + 1;
        while (batch.next()) {
            if (batch.offset() != expected++) {
                throw new AssertionError("offsets not contiguous in " + batch);
            }
            records.add(new Delivered(
                    batch.partition(),
                    batch.offset(),
                    batch.key().isPresent() ? batch.key().toByteArray() : null,
                    batch.value().isPresent() ? batch.value().toByteArray() : null,
                    batch.timestampMs()));
        }
    }

    @Override
    public void onAssigned(int[] partitions) {
        assignments.add(partitions.clone());
    }

    @Override
    public void onRevoked(int[] partitions) {
        throw new AssertionError("datagen never revokes");
    }

    @Override
    public void onLost(int[] partitions) {
        throw new AssertionError("datagen never loses partitions");
    }
}
