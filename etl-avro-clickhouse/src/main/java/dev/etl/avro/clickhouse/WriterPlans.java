package dev.etl.avro.clickhouse;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.avro.WriterSchemas;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger log = LoggerFactory.getLogger(WriterPlans.class);

    private final AvroRowMapping mapping;
    private final SchemaRegistryClient registry;
    private final ConcurrentHashMap<Integer, Compiled> byId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Compiled> byFingerprint = new ConcurrentHashMap<>();
    private final AtomicInteger compilations = new AtomicInteger();
    /** Leaf paths of writer fields the reader schema lacks, over every writer schema compiled so far. */
    private final Set<String> unreadWriterFields = ConcurrentHashMap.newKeySet();
    /** Told (on the compiling thread, after the log line) of a writer schema with fields the reader lacks. */
    private volatile Runnable onUnreadFields = () -> {};
    /** Set before the builder's first {@code build()}; volatile because lanes may be built on other threads. */
    private volatile WriterSchemas writerSchemas = WriterSchemas.shared();

    /** When not null, plans are compiled for {@link AvroView}s ({@link AvroRowMapping#compileView}). */
    private final AvroView.Fields view;

    WriterPlans(AvroRowMapping mapping, SchemaRegistryClient registry) {
        this(mapping, registry, null);
    }

    WriterPlans(AvroRowMapping mapping, SchemaRegistryClient registry, AvroView.Fields view) {
        this.mapping = mapping;
        this.registry = registry;
        this.view = view;
    }

    void writerSchemas(WriterSchemas writerSchemas) {
        this.writerSchemas = writerSchemas;
    }

    WriterSchemas writerSchemas() {
        return writerSchemas;
    }

    int compilations() {
        return compilations.get();
    }

    /** Who is told of a newly compiled writer schema with fields the reader lacks; must not block. */
    void onUnreadFields(Runnable listener) {
        this.onUnreadFields = Objects.requireNonNull(listener, "listener");
    }

    Set<String> unreadWriterFields() {
        return Set.copyOf(unreadWriterFields);
    }

    /** Compiles a raw builder's one writer schema (counted like any compilation). */
    Compiled raw(Schema writer) {
        compilations.incrementAndGet();
        noteUnreadFields(writer, writer.getFullName() + " (raw)");
        return new Compiled(
                view == null ? mapping.compile(writer) : mapping.compileView(writer, view),
                null,
                writer.getFullName() + " (raw)");
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
        noteUnreadFields(writer, label);
        return Compiled.of(mapping, writer, label, view);
    }

    /**
     * A writer schema with fields the reader schema lacks (a producer's newer schema): Avro's resolution
     * drops them, so no column can store them. Said once per writer schema (compiling is once per id or
     * fingerprint), and kept for {@link AvroRowTranscoder.Builder#unreadWriterFields()}.
     */
    private void noteUnreadFields(Schema writer, String label) {
        List<String> unread = new ArrayList<>();
        unread(writer, mapping.readerSchema(), "", unread);
        if (unread.isEmpty()) {
            return;
        }
        unreadWriterFields.addAll(unread);
        log.warn(
                "writer schema {} has {} field(s) the reader schema {} lacks, so the table does not store them: {} "
                        + "(their values are dropped; to keep them, add the fields to the reader schema and the "
                        + "columns to the table and the mapping)",
                label,
                unread.size(),
                mapping.readerSchema().getFullName(),
                unread);
        onUnreadFields.run();
    }

    /** Writer leaf paths under {@code prefix} without a reader field (by name or alias), through records. */
    static void unread(Schema writer, Schema reader, String prefix, List<String> out) {
        if (writer.getType() != Schema.Type.RECORD || reader.getType() != Schema.Type.RECORD) {
            return;
        }
        for (Schema.Field wf : writer.getFields()) {
            Schema.Field rf = PlanCompiler.readerField(reader, wf);
            if (rf == null) {
                out.add(prefix + wf.name());
            } else {
                unread(wf.schema(), rf.schema(), prefix + rf.name() + ".", out);
            }
        }
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

        static Compiled of(AvroRowMapping mapping, Schema writer, String label, AvroView.Fields view) {
            try {
                return new Compiled(
                        view == null ? mapping.compile(writer) : mapping.compileView(writer, view), null, label);
            } catch (AvroMappingException e) {
                return new Compiled(null, e, label);
            }
        }
    }
}
