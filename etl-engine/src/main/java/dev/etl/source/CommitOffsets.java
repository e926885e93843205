package dev.etl.source;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * What a lane asks its source to commit: for each partition, the next offset to read and an optional
 * metadata string stored with it (Kafka's {@code OffsetAndMetadata.metadata}). Built by the engine
 * and immutable once handed to {@link SourceLane#commit}; the same instance is passed back to the
 * commit's callback.
 *
 * <p>The metadata is the engine's (a source stores and returns it verbatim, see
 * {@link SourceLane#committed(int)}): with deterministic batches it records the block boundaries
 * beyond the committed offset, so a replay rebuilds the same blocks.
 */
public final class CommitOffsets {
    private final int[] partitions;
    private final long[] offsets;
    private final String[] metadata;
    private final int size;

    private CommitOffsets(int[] partitions, long[] offsets, String[] metadata, int size) {
        this.partitions = partitions;
        this.offsets = offsets;
        this.metadata = metadata;
        this.size = size;
    }

    /** A builder expecting about {@code partitions} entries. */
    public static Builder builder(int partitions) {
        return new Builder(Math.max(1, partitions));
    }

    /** Number of partitions to commit. */
    public int size() {
        return size;
    }

    /** Whether there is nothing to commit. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Dense partition id of entry {@code index}. */
    public int partition(int index) {
        check(index);
        return partitions[index];
    }

    /** Next offset to read of entry {@code index}. */
    public long offset(int index) {
        check(index);
        return offsets[index];
    }

    /** Metadata of entry {@code index}, or null when there is none. */
    public @Nullable String metadata(int index) {
        check(index);
        return metadata[index];
    }

    /** The offset to commit for {@code partition}, or -1 when it is not in this commit. */
    public long offsetOf(int partition) {
        for (int i = 0; i < size; i++) {
            if (partitions[i] == partition) {
                return offsets[i];
            }
        }
        return -1;
    }

    private void check(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("entry " + index + " of " + size);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < size; i++) {
            sb.append(i == 0 ? "" : ", ").append(partitions[i]).append('=').append(offsets[i]);
            if (metadata[i] != null) {
                sb.append('[').append(metadata[i]).append(']');
            }
        }
        return sb.append('}').toString();
    }

    /** Collects entries; each partition at most once. Not thread-safe. */
    public static final class Builder {
        private int[] partitions;
        private long[] offsets;
        private String[] metadata;
        private int size;

        private Builder(int capacity) {
            partitions = new int[capacity];
            offsets = new long[capacity];
            metadata = new String[capacity];
        }

        /**
         * Adds {@code partition} at {@code nextOffset} with {@code metadata} (null for none).
         *
         * @throws IllegalArgumentException for a negative offset or a partition added twice
         */
        public Builder add(int partition, long nextOffset, @Nullable String metadata) {
            if (nextOffset < 0) {
                throw new IllegalArgumentException("offset of partition " + partition + " must be >= 0: " + nextOffset);
            }
            for (int i = 0; i < size; i++) {
                if (partitions[i] == partition) {
                    throw new IllegalArgumentException("partition " + partition + " added twice");
                }
            }
            if (size == partitions.length) {
                partitions = Arrays.copyOf(partitions, size * 2);
                offsets = Arrays.copyOf(offsets, size * 2);
                this.metadata = Arrays.copyOf(this.metadata, size * 2);
            }
            partitions[size] = partition;
            offsets[size] = nextOffset;
            this.metadata[size] = metadata;
            size++;
            return this;
        }

        /** Number of entries so far. */
        public int size() {
            return size;
        }

        public CommitOffsets build() {
            return new CommitOffsets(partitions, offsets, metadata, size);
        }
    }
}
