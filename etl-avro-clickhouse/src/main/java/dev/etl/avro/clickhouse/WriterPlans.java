package dev.etl.avro.clickhouse;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.avro.WriterSchemas;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;

/**
 * The plans one {@link AvroRowTranscoder.Builder} compiled so far, shared by its lanes: per registry
 * schema id (Confluent payloads) and per CRC-64-AVRO fingerprint (single-object payloads, writer schema
 * from a {@link WriterSchemas}). Thread-safe; consulted on a lane's cache miss only, so the boxing of
 * the keys is off the hot path.
 *
 * <p>A plan, or a writer schema's mapping error, is kept for good: an id and a fingerprint each name
 * one schema. An unknown id or fingerprint is not kept here (the registry client keeps unknown ids for
 * its {@code notFoundTtl}); an unknown fingerprint costs one {@code ConcurrentHashMap} read per payload
 * before its exception, and decodes from the first payload after its schema is registered.
 */
final class WriterPlans {
    private final AvroRowMapping mapping;
    private final SchemaRegistryClient registry;
    private final ConcurrentHashMap<Integer, Compiled> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Compiled> byFingerprint = new ConcurrentHashMap<>();
    private final AtomicInteger compilations = new AtomicInteger();
    /** Set before the builder's first {@code build()}; volatile because lanes may be built on other threads. */
    private volatile WriterSchemas writerSchemas = WriterSchemas.shared();

    WriterPlans(AvroRowMapping mapping, SchemaRegistryClient registry) {
        this.mapping = mapping;
        this.registry = registry;
    }

    void writerSchemas(WriterSchemas writerSchemas) {
        this.writerSchemas = writerSchemas;
    }

    int compilations() {
        return compilations.get();
    }

    /** Compiles a raw builder's one writer schema (counted like any compilation). */
    Compiled raw(Schema writer) {
        compilations.incrementAndGet();
        return new Compiled(mapping.compile(writer), null, writer.getFullName() + " (raw)");
    }

    Compiled byId(int id) {
        Compiled cached = byId.get(id);
        if (cached != null) {
            return cached;
        }
        Schema writer = registrySchema(id);
        // Compiled inside computeIfAbsent: exactly once per id even when lanes race on it (compiling is
        // microseconds of CPU; the registry call, the slow part, is above, outside the map's lock).
        return byId.computeIfAbsent(id, key -> compile(writer, "id " + id + " (" + writer.getFullName() + ")"));
    }

    Compiled byFingerprint(long fingerprint) {
        Compiled cached = byFingerprint.get(fingerprint);
        if (cached != null) {
            return cached;
        }
        WriterSchemas schemas = writerSchemas;
        Schema writer = schemas.byFingerprint(fingerprint);
        if (writer == null) {
            throw DeserializationException.of(
                    -1,
                    "unknown writer schema fingerprint " + hex(fingerprint) + " (single-object payload): not "
                            + "registered in WriterSchemas (" + schemas.size() + " known); whatever produces such "
                            + "rows must register their writer schema there before handing out the first",
                    null);
        }
        return byFingerprint.computeIfAbsent(
                fingerprint,
                key -> compile(writer, "fingerprint " + hex(fingerprint) + " (" + writer.getFullName() + ")"));
    }

    static String hex(long fingerprint) {
        return String.format("%016x", fingerprint);
    }

    private Compiled compile(Schema writer, String label) {
        compilations.incrementAndGet();
        return Compiled.of(mapping, writer, label);
    }

    private Schema registrySchema(int id) {
        try {
            return registry.schemaById(id);
        } catch (SchemaRegistryException e) {
            if (e.notFound()) {
                throw DeserializationException.of(id, "unknown schema id " + id + ": " + e.getMessage(), e);
            }
            if (e.invalidAnswer()) {
                throw DeserializationException.of(id, "unusable writer schema: " + e.getMessage(), e);
            }
            throw new FatalPipelineException(
                    ErrorClass.DESERIALIZATION,
                    "cannot fetch writer schema id " + id + " (schema id " + id + "): " + e.getMessage(),
                    e);
        }
    }

    /** A writer schema's plan, or why it has none. */
    static final class Compiled {
        final Plan plan;
        final AvroMappingException error;
        final String label;

        Compiled(Plan plan, AvroMappingException error, String label) {
            this.plan = plan;
            this.error = error;
            this.label = label;
        }

        static Compiled of(AvroRowMapping mapping, Schema writer, String label) {
            try {
                return new Compiled(mapping.compile(writer), null, label);
            } catch (AvroMappingException e) {
                return new Compiled(null, e, label);
            }
        }
    }
}
