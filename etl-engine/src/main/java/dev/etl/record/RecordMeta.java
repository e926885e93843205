package dev.etl.record;

import org.jspecify.annotations.Nullable;

/**
 * Metadata of the record a lane is currently pushing through its chain: where it came from
 * (partition, offset, timestamp), its key hash, and the source's key and value bytes.
 *
 * <p>One instance per lane, implemented by the engine and updated in place before each record is
 * pushed (primitive fields only, so nothing is allocated per record). Operators, encoders and
 * routers read it during their call; values read after that call returns describe a later record.
 * Records derived from one source record (flatMap children) see the same metadata.
 *
 * <p>Not thread-safe: confined to its lane thread. Read-only for user code; tests may implement it
 * to call an encoder or router directly.
 */
public interface RecordMeta {
    /** Dense source partition id (see {@link dev.etl.source.SourceLane#describe(int)} for its name). */
    int partition();

    /** Source offset of the record. */
    long offset();

    /** Source timestamp in epoch milliseconds, or -1 when the source has none. */
    long timestampMs();

    /**
     * Stable 32-bit hash of the record key (murmur3 of the key bytes; 0 when the record has no key).
     * {@link dev.etl.sink.KeyHashRouter} routes on it.
     */
    int keyHash();

    /**
     * The record's key as polled from the source (absent when it has none), or null before the first
     * record and while a stateful operator emits data it held from earlier records (such a value has no
     * single source record). A view valid during the current call only; copy it to keep it (failure paths
     * only).
     */
    @Nullable
    Payload sourceKey();

    /**
     * The record's value as polled from the source, undeserialized (absent for a tombstone), or null
     * before the first record and while a stateful operator emits data it held from earlier records. A
     * view valid during the current call only; copy it to keep it.
     */
    @Nullable
    Payload sourceValue();
}
