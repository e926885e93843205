package dev.etl.source;

import org.jspecify.annotations.Nullable;

/**
 * Where a partition's committed position stood when it was assigned to a lane: the next offset to read
 * and the metadata committed with it (see {@link CommitOffsets}).
 *
 * @param offset   the committed next offset, or -1 when the partition has no committed offset
 * @param metadata the metadata committed with it, or null
 */
public record CommittedPosition(long offset, @Nullable String metadata) {
    /** No committed position (a new group, or a source that does not keep one). */
    public static final CommittedPosition NONE = new CommittedPosition(-1, null);
}
