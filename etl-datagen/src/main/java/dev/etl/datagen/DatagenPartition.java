package dev.etl.datagen;

/**
 * One partition of a {@link DatagenSource}: how many records it has, how far its owning lane has
 * generated, and what was committed. Written by the owning lane only (one volatile write per poll batch
 * and per commit); read by any thread (metrics, {@link DatagenSource#isDone()}, tests).
 */
final class DatagenPartition {
    final int id;
    /** Records in this partition: the bounded share, or Long.MAX_VALUE when unbounded. */
    final long end;
    /** Next sequence to generate (the position). */
    volatile long position;
    /** Last committed next-offset, or -1. */
    volatile long committed = -1;
    /** Metadata committed with {@link #committed}, kept verbatim as a source must. */
    volatile String metadata;
    /** Whether {@link #end} was committed (bounded runs); set once by the owning lane. */
    boolean done;

    DatagenPartition(int id, long end) {
        this.id = id;
        this.end = end;
        this.done = end == 0;
    }
}
