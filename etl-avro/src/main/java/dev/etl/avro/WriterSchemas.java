package dev.etl.avro;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.jspecify.annotations.Nullable;

/**
 * Writer schemas known in this process by their CRC-64-AVRO parsing fingerprint, for payloads in Avro's
 * single-object encoding ({@code C3 01}, the 8-byte little-endian fingerprint, the body) that carry no
 * registry id: the rows a backfill reads from Avro object container files or Parquet. A reader registers
 * a file's schema before it hands out the file's first row; every {@link AvroDeserializer} (whatever its
 * framing: a Confluent payload starts with 0x00, never 0xC3) and the transcoder then decode such rows
 * with the writer schema resolved against their reader schema, as for a registry id.
 *
 * <p>Append-only and thread-safe. A deserializer looks a fingerprint up here once per lane and caches the
 * compiled decoder, so the hot path stays a primitive-map lookup.
 */
public final class WriterSchemas {
    private static final WriterSchemas SHARED = new WriterSchemas();

    private final ConcurrentHashMap<Long, Schema> schemas = new ConcurrentHashMap<>();

    /** A new, empty set (tests); the backfill and the deserializers use {@link #shared()}. */
    public WriterSchemas() {}

    /** The process-wide set. */
    public static WriterSchemas shared() {
        return SHARED;
    }

    /** The CRC-64-AVRO fingerprint of the schema's parsing canonical form (what single-object encoding carries). */
    public static long fingerprint(Schema schema) {
        return SchemaNormalization.parsingFingerprint64(Objects.requireNonNull(schema, "schema"));
    }

    /** Adds {@code schema} (idempotent) and returns its fingerprint. */
    public long register(Schema schema) {
        long fingerprint = fingerprint(schema);
        schemas.putIfAbsent(fingerprint, schema);
        return fingerprint;
    }

    /** The schema with this fingerprint, or null when none was registered. */
    public @Nullable Schema byFingerprint(long fingerprint) {
        return schemas.get(fingerprint);
    }

    /** How many schemas are known. */
    public int size() {
        return schemas.size();
    }
}
