package dev.etl.s3;

import dev.etl.source.CommittedPosition;

/**
 * How a backfill's rows get offsets the engine can checkpoint: a row's offset packs the work item's
 * offset on the work topic and the row's index in the item, {@code item << 32 | row}. The engine sees an
 * ordinary partition whose offsets grow, tracks and commits them as for Kafka, and builds deterministic
 * blocks on them; the lane translates a commit back to the work topic: item offset {@code v >>> 32} with
 * the row {@code v & 0xffffffff} in the commit metadata. So an item's offset is committed (the next item
 * becomes the committed position) only when every row of it is durable, and a restart resumes inside an
 * item at the first row not committed.
 *
 * <p>An item's last batch ends at {@code (item + 1) << 32} (its {@code lastOffset} is the item's last
 * virtual offset, even when its last row's offset is lower), so a finished item commits as the next
 * item's start with no row part.
 */
final class VirtualOffsets {
    static final int ROW_BITS = 32;
    static final long ROW_MASK = (1L << ROW_BITS) - 1;
    /** Work-topic offsets above this cannot be packed. */
    static final long MAX_ITEM_OFFSET = (1L << (63 - ROW_BITS)) - 2;
    /** Rows per item above this cannot be packed. */
    static final long MAX_ROWS = ROW_MASK - 1;

    /** The commit metadata prefix carrying the row part: {@code etl-s3:<row>} then {@code |} and the engine's. */
    static final String PREFIX = "etl-s3:";

    private VirtualOffsets() {}

    static long of(long itemOffset, long row) {
        return itemOffset << ROW_BITS | row;
    }

    static long item(long virtual) {
        return virtual >>> ROW_BITS;
    }

    static long row(long virtual) {
        return virtual & ROW_MASK;
    }

    /** The last virtual offset of an item: a batch ending the item reports it as its last offset. */
    static long itemLast(long itemOffset) {
        return of(itemOffset + 1, 0) - 1;
    }

    /** The work-topic metadata for a commit at {@code virtual} with the engine's {@code metadata}. */
    static String metadata(long virtual, String metadata) {
        long row = row(virtual);
        if (row == 0) {
            return metadata;
        }
        return metadata == null ? PREFIX + row : PREFIX + row + "|" + metadata;
    }

    /**
     * The engine's view of a work-topic committed position: the virtual offset and the engine's part of
     * the metadata.
     *
     * @throws IllegalStateException when the metadata has the prefix but no readable row (not ours)
     */
    static CommittedPosition toVirtual(CommittedPosition kafka, String partition) {
        if (kafka.offset() < 0) {
            return kafka;
        }
        String metadata = kafka.metadata();
        long row = 0;
        if (metadata != null && metadata.startsWith(PREFIX)) {
            int bar = metadata.indexOf('|');
            String digits = metadata.substring(PREFIX.length(), bar < 0 ? metadata.length() : bar);
            try {
                row = Long.parseLong(digits);
            } catch (NumberFormatException e) {
                throw new IllegalStateException("work-topic partition " + partition
                        + " has commit metadata with a bad row part '" + digits + "'");
            }
            metadata = bar < 0 ? null : metadata.substring(bar + 1);
        }
        if (metadata != null && metadata.isEmpty()) {
            metadata = null;
        }
        return new CommittedPosition(of(kafka.offset(), row), metadata);
    }
}
