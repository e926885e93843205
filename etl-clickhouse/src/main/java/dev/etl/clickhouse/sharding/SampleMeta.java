package dev.etl.clickhouse.sharding;

import dev.etl.record.KeyHash;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import org.jspecify.annotations.Nullable;

/**
 * The metadata a router sees during a {@link DistributedPlacementCheck}: the sample key as the
 * record's source key (its bytes, or its UTF-8 for text; absent for numbers) with its
 * {@link KeyHash}, so routers on the record key can be checked. Confined to the checking thread.
 */
final class SampleMeta implements RecordMeta {
    private final Payload key = new Payload();
    private int keyHash;

    void use(Object sampleKey) {
        if (sampleKey instanceof byte[] || sampleKey instanceof CharSequence) {
            key.wrap(PlacementKeySql.bytes(sampleKey));
        } else {
            key.clear();
        }
        keyHash = KeyHash.of(key);
    }

    @Override
    public int partition() {
        return 0;
    }

    @Override
    public long offset() {
        return -1;
    }

    @Override
    public long timestampMs() {
        return -1;
    }

    @Override
    public int keyHash() {
        return keyHash;
    }

    @Override
    public Payload sourceKey() {
        return key;
    }

    @Override
    public @Nullable Payload sourceValue() {
        return null;
    }
}
