package dev.etl.avro;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.specific.SpecificRecord;

/**
 * Decodes Avro payloads — Confluent wire format, single-object encoding, or raw bodies — into
 * generic records, generated specific records, or the user's own type, resolving each writer schema
 * against one reader schema (schema evolution).
 *
 * <p>The framings with a header (Confluent, single-object) also read single-object payloads whose
 * writer schema is registered in a {@link WriterSchemas} (by default {@link WriterSchemas#shared()}):
 * the rows a backfill reads from object storage carry no registry id, and reach the same chains as
 * the topic's records.
 *
 * <pre>{@code
 * SchemaRegistryClient registry = SchemaRegistryClient.builder("http://registry:8081").build();  // one per process
 * AvroDeserializer.Builder<Order> orders = AvroDeserializer.specific(Order.class).confluent(registry);
 * ChainFactory chain = ctx -> Chains.from(ctx, orders.build())   // build() once per lane
 *         .map("to-row", OrderRow::of)
 *         ...;
 * }</pre>
 *
 * <p><b>Per lane.</b> Build one instance per lane (the {@link Builder} may be shared and built many
 * times). An instance caches a decoder per writer schema and <em>reuses the record it emits</em>:
 * the value passed to {@code out} is overwritten by the next record (strings are reused
 * {@code Utf8}s, arrays and maps are cleared and refilled). Downstream sees it only during its
 * {@code accept} call, as the engine's contract says; copy what must outlive it.
 *
 * <p>Calling one instance from a second thread (typically: {@code build()} called outside the
 * {@code ChainFactory} lambda, so every lane shares it) is detected at that thread's first call and
 * fails the pipeline with a {@link FatalPipelineException} saying to build one per lane; the check
 * is one field read and compare per record.
 *
 * <p><b>Fast path.</b> For each (writer, reader) pair the decoder is compiled into a tree of small
 * readers that decode straight from the payload's array (see {@code docs/connectors/avro.md} for what
 * it covers); other pairs use Avro's resolving {@code DatumReader}. Both give the same values.
 *
 * <p><b>Errors</b> (all thrown from {@link #deserialize}, the chain head adds partition and offset
 * and applies the {@code deserialize} stage's policy):
 * <ul>
 * <li>{@link dev.etl.error.DeserializationException}: payload shorter than its header, bad magic
 * byte or marker, unknown schema id (the registry said 404) or fingerprint (not configured, not
 * in the {@link WriterSchemas}), a writer schema the
 * reader cannot read (naming both schemas and the incompatible fields), a body that does not match
 * its writer schema (truncated, malformed varint, bad union/enum index, trailing bytes), a failed
 * user mapping;</li>
 * <li>registry unreachable/slow/5xx/401 after the client's bounded retries: by default a
 * {@link FatalPipelineException} caused by a {@link SchemaRegistryUnavailableException} — the
 * pipeline fails rather than skip good data; see {@link Builder#onRegistryUnavailable}.</li>
 * </ul>
 * <p><b>Tombstones</b> (absent value) emit nothing and are counted ({@link #tombstones()}); their
 * offset commits like a filtered record's.
 *
 * @param <T> the emitted type
 */
public final class AvroDeserializer<T> implements Deserializer<T> {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(AvroDeserializer.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Framing<T> framing;
    private final ErrorPolicy registryUnavailable;
    /** The thread of the first call; set once (CAS), then read plainly on every call. */
    @SuppressWarnings("unused") // accessed through OWNER as well
    private Thread owner;

    private T reuse;
    private long tombstones;

    private AvroDeserializer(Framing<T> framing, ErrorPolicy registryUnavailable) {
        this.framing = framing;
        this.registryUnavailable = registryUnavailable;
    }

    /** Generic records ({@code GenericData.Record}) of {@code readerSchema}. */
    public static Builder<GenericRecord> generic(Schema readerSchema) {
        return new Builder<>(AvroTarget.generic(Objects.requireNonNull(readerSchema, "readerSchema")));
    }

    /** Instances of a generated {@link SpecificRecord} class; its schema is the reader schema. */
    public static <T extends SpecificRecord> Builder<T> specific(Class<T> type) {
        return new Builder<>(AvroTarget.specific(Objects.requireNonNull(type, "type")));
    }

    /**
     * The user's own type: records are decoded as generic records of {@code readerSchema} (fast path
     * included), then passed to {@code mapper}.
     */
    public static <T> Builder<T> custom(Schema readerSchema, AvroRecordMapper<T> mapper) {
        return new Builder<>(AvroTarget.mapped(
                Objects.requireNonNull(readerSchema, "readerSchema"), Objects.requireNonNull(mapper, "mapper")));
    }

    @Override
    public void deserialize(Payload key, Payload value, RecordMeta meta, Collector<? super T> out) {
        if (owner != Thread.currentThread()) {
            claimOwner();
        }
        if (!value.isPresent()) {
            tombstones++;
            return;
        }
        T decoded;
        try {
            decoded = framing.decode(value.array(), value.offset(), value.length(), reuse);
        } catch (SchemaRegistryUnavailableException e) {
            if (registryUnavailable == ErrorPolicy.SKIP) {
                throw e;
            }
            // Thrown as fatal so a SKIP policy on the stage cannot drop good records because the
            // registry blinked. The cause is not located yet: the chain head fills in the partition
            // as the source names it (e.g. orders-7) and the offset.
            throw new FatalPipelineException(ErrorClass.DESERIALIZATION, e.getMessage(), e);
        }
        reuse = decoded;
        out.collect(decoded);
    }

    /**
     * First call (records the calling thread) or a call from another thread (fails). A plain read
     * that sees {@code null} only means this thread has not seen the owner yet; the CAS decides.
     */
    private void claimOwner() {
        Thread current = Thread.currentThread();
        Thread previous = (Thread) OWNER.compareAndExchange(this, null, current);
        if (previous == null || previous == current) {
            return;
        }
        throw new FatalPipelineException(
                ErrorClass.DESERIALIZATION,
                "AvroDeserializer " + this
                        + " is used by lane threads '" + previous.getName() + "' and '" + current.getName()
                        + "': one instance must serve one lane (it reuses its decoders and the record it emits, so sharing "
                        + "it corrupts valid records). Call build() inside the ChainFactory lambda, e.g. "
                        + "ctx -> Chains.from(ctx, builder.build())..., and share the AvroDeserializer.Builder instead",
                null);
    }

    /** Tombstones (absent values) seen and skipped by this instance. */
    public long tombstones() {
        return tombstones;
    }

    /** The reader schema records are resolved to. */
    public Schema readerSchema() {
        return framing.target.reader;
    }

    @Override
    public String toString() {
        return "AvroDeserializer[" + framing.getClass().getSimpleName() + " -> " + framing.target.reader.getFullName()
                + (framing.fastPath ? ", fast path" : "") + "]";
    }

    /**
     * Configures deserializers; choose exactly one wire format ({@link #confluent}, {@link #raw} or
     * {@link #singleObject}). Immutable settings once built; {@link #build()} may be called once per
     * lane.
     */
    public static final class Builder<T> {
        private final AvroTarget<T> target;
        private SchemaRegistryClient registry;
        private Schema rawWriter;
        private List<Schema> singleObjectWriters;
        private WriterSchemas writerSchemas;
        private boolean fastPath = true;
        private ErrorPolicy registryUnavailable = ErrorPolicy.FAIL;

        private Builder(AvroTarget<T> target) {
            this.target = target;
        }

        /**
         * Confluent wire format; writer schemas are fetched by id from {@code registry} (shared).
         * Payloads in Avro's single-object encoding (a backfill's rows) are read too, their writer
         * schemas found by fingerprint in the {@link #writerSchemas WriterSchemas}.
         */
        public Builder<T> confluent(SchemaRegistryClient registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Raw Avro bodies, all written with {@code writerSchema}. */
        public Builder<T> raw(Schema writerSchema) {
            this.rawWriter = Objects.requireNonNull(writerSchema, "writerSchema");
            return this;
        }

        /**
         * Avro single-object encoding; the writer schema is found by fingerprint among
         * {@code writerSchemas}, else in the {@link #writerSchemas(WriterSchemas) WriterSchemas}.
         */
        public Builder<T> singleObject(List<Schema> writerSchemas) {
            if (writerSchemas.isEmpty()) {
                throw new IllegalArgumentException("at least one writer schema is required");
            }
            this.singleObjectWriters = List.copyOf(writerSchemas);
            return this;
        }

        /**
         * Where single-object payloads find a writer schema by fingerprint when it is not configured
         * here (default {@link WriterSchemas#shared()}, where a backfill registers its files' schemas);
         * another instance isolates a test. For {@link #confluent} and {@link #singleObject} only: raw
         * bodies have no header to tell a single-object payload by.
         */
        public Builder<T> writerSchemas(WriterSchemas writerSchemas) {
            this.writerSchemas = Objects.requireNonNull(writerSchemas, "writerSchemas");
            return this;
        }

        /** Whether to use the compiled fast path where it applies (default true); false: always Avro's reader. */
        public Builder<T> fastPath(boolean fastPath) {
            this.fastPath = fastPath;
            return this;
        }

        /**
         * What a registry outage does to a record whose writer schema is not cached yet:
         * {@link ErrorPolicy#FAIL} (default) fails the pipeline whatever the stage's policy, so it
         * replays from its last commit once restarted; {@link ErrorPolicy#SKIP} throws the
         * {@link SchemaRegistryUnavailableException} to the stage's policy, which may skip it.
         */
        public Builder<T> onRegistryUnavailable(ErrorPolicy policy) {
            this.registryUnavailable = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** A new deserializer for one lane. */
        public AvroDeserializer<T> build() {
            int formats =
                    (registry != null ? 1 : 0) + (rawWriter != null ? 1 : 0) + (singleObjectWriters != null ? 1 : 0);
            if (formats != 1) {
                throw new IllegalStateException(
                        "choose exactly one wire format: confluent(registry), raw(schema) or singleObject(schemas)");
            }
            if (rawWriter != null && writerSchemas != null) {
                throw new IllegalStateException(
                        "writerSchemas(...) applies to confluent(registry) and singleObject(schemas): raw(schema) "
                                + "bodies have no header that could name a single-object writer schema");
            }
            WriterSchemas schemas = writerSchemas != null ? writerSchemas : WriterSchemas.shared();
            Framing<T> framing;
            if (registry != null) {
                framing = new Framing.Confluent<>(target, fastPath, registry, schemas);
            } else if (rawWriter != null) {
                framing = new Framing.Raw<>(target, fastPath, rawWriter);
            } else {
                framing = new Framing.SingleObject<>(target, fastPath, singleObjectWriters, schemas);
            }
            return new AvroDeserializer<>(framing, registryUnavailable);
        }
    }
}
