package dev.etl.transcode;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.SchemaRegistryException;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import dev.etl.sink.RowBuffer;
import dev.etl.sink.RowEncoder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.agrona.collections.Int2ObjectHashMap;
import org.apache.avro.Schema;

/**
 * Writes one RowBinary row per Avro payload, straight from the Avro bytes: no record is
 * materialised, nothing is allocated per record. A {@link RowEncoder} of the raw {@link Payload},
 * so a chain that needs no object ends in the sink without decoding:
 *
 * <pre>{@code
 * AvroRowMapping mapping = AvroRowMapping.builder(readerSchema)...build();
 * AvroRowTranscoder.Builder orders = AvroRowTranscoder.confluent(mapping, registry);   // shared by lanes
 * SinkDefinition sink = ClickHouseSink.definition("orders", "orders-pipeline", config, mapping.columns(), registry);
 * ChainFactory chains = ctx -> Chains.from(ctx, Deserializer.payload())
 *         .filter("not-tombstone", Payload::isPresent)
 *         .sink("orders", orders.build(), KeyHashRouter.byRecordKey());              // build() per lane
 * }</pre>
 *
 * <p><b>Compiled once per writer schema.</b> The first payload of a writer schema id fetches the
 * schema from the registry (cached there forever) and compiles the mapping for it into a plan that
 * reads the body once in writer order and writes the columns in table order; the plan is cached in
 * the {@link Builder}, so every lane compiles a writer schema id once per process, and in the lane,
 * so the next payload of that id costs one primitive-map lookup (none when it is the previous
 * payload's id). A writer schema that cannot be transcoded (a mapped field of an incompatible type,
 * or missing without a reader default) is cached as its error: every payload of that id fails alike.
 *
 * <p><b>Per lane.</b> Build one instance per lane, inside the {@code ChainFactory}: it owns the
 * cursor and its scratch. Called on the lane thread only: an instance called from a second thread
 * (typically {@code build()} called outside the {@code ChainFactory} lambda, so every lane shares it)
 * fails the pipeline at that thread's first record with a {@link FatalPipelineException} saying so; the
 * check is one field read and compare per record.
 *
 * <p><b>Errors</b>, thrown from {@link #encode}/{@link #transcode} and handled by the sink stage's
 * policy (the stage cuts the partial row back out of the buffer):
 * <ul>
 * <li>{@link ColumnEncodeException} naming the column: a value out of its column's range, null for a
 *     non-Nullable column, too long for a FixedString, more digits than the Decimal's precision;</li>
 * <li>{@link DeserializationException} with the schema id: a payload shorter than its header, a bad
 *     magic byte, an unknown schema id, a writer schema the mapping cannot read (with the
 *     {@link AvroMappingException} as cause), a body that does not match its writer schema
 *     (truncated, malformed varint, bad union or enum index, trailing bytes), a tombstone;</li>
 * <li>{@link FatalPipelineException}: the registry could not be asked (unreachable, slow, 5xx after
 *     the client's bounded retries) — the pipeline fails rather than drop good records, as
 *     {@code AvroDeserializer} does by default.</li>
 * </ul>
 */
public final class AvroRowTranscoder implements RowEncoder<Payload> {
    private static final int HEADER_LENGTH = 5;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(AvroRowTranscoder.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Builder shared;
    /** The thread of the first call; set once (CAS), then read plainly on every call. */
    @SuppressWarnings("unused") // accessed through OWNER as well
    private Thread owner;

    private final AvroCursor in = new AvroCursor();
    private final Int2ObjectHashMap<Compiled> plans = new Int2ObjectHashMap<>();
    private int lastId = -1;
    private Compiled last;

    private AvroRowTranscoder(Builder shared) {
        this.shared = shared;
        if (shared.raw != null) {
            use(shared.raw);
        }
    }

    /** Confluent wire format (magic byte 0, 4-byte schema id, body); writer schemas from {@code registry}. */
    public static Builder confluent(AvroRowMapping mapping, SchemaRegistryClient registry) {
        return new Builder(
                Objects.requireNonNull(mapping, "mapping"), Objects.requireNonNull(registry, "registry"), null);
    }

    /**
     * Raw Avro bodies, all written with {@code writerSchema}; compiled here, so a mapping error is
     * thrown now.
     *
     * @throws AvroMappingException when the mapping cannot read {@code writerSchema}
     */
    public static Builder raw(AvroRowMapping mapping, Schema writerSchema) {
        return new Builder(
                Objects.requireNonNull(mapping, "mapping"), null, Objects.requireNonNull(writerSchema, "writerSchema"));
    }

    @Override
    public void encode(Payload value, RecordMeta meta, RowBuffer out) {
        if (!value.isPresent()) {
            throw DeserializationException.of(
                    -1,
                    "a tombstone (absent value) has no row: filter tombstones before "
                            + "the sink (.filter(\"not-tombstone\", Payload::isPresent))",
                    null);
        }
        transcode(value.array(), value.offset(), value.length(), out);
    }

    /** Appends the row of the payload in {@code array[offset, offset + length)} to {@code out}. */
    public void transcode(byte[] array, int offset, int length, RowBuffer out) {
        if (owner != Thread.currentThread()) {
            claimOwner();
        }
        Compiled compiled;
        int id;
        int bodyOffset;
        if (shared.raw != null) {
            compiled = last;
            id = -1;
            bodyOffset = offset;
        } else {
            if (length < HEADER_LENGTH) {
                throw DeserializationException.of(
                        -1,
                        "payload of " + length
                                + " byte(s) is shorter than the 5-byte Confluent header (magic byte + schema id)",
                        null);
            }
            if (array[offset] != 0) {
                throw DeserializationException.of(
                        -1,
                        String.format(
                                "bad magic byte 0x%02x: not Confluent wire format (expected 0x00)",
                                array[offset] & 0xff),
                        null);
            }
            id = (array[offset + 1] & 0xff) << 24
                    | (array[offset + 2] & 0xff) << 16
                    | (array[offset + 3] & 0xff) << 8
                    | (array[offset + 4] & 0xff);
            compiled = id == lastId ? last : lookup(id);
            bodyOffset = offset + HEADER_LENGTH;
        }
        if (compiled.error != null) {
            throw DeserializationException.of(
                    id,
                    "writer schema " + compiled.label + " cannot be transcoded: " + compiled.error.getMessage(),
                    compiled.error);
        }
        AvroCursor in = this.in;
        in.wrap(array, bodyOffset, length - (bodyOffset - offset));
        try {
            compiled.plan.write(in, out);
        } catch (MalformedBody e) {
            throw DeserializationException.of(
                    id, "Avro body does not match writer schema " + compiled.label + ": " + e.getMessage(), null);
        }
    }

    /**
     * First call (records the calling thread) or a call from another thread (fails). A plain read that
     * sees {@code null} only means this thread has not seen the owner yet; the CAS decides.
     */
    private void claimOwner() {
        Thread current = Thread.currentThread();
        Thread previous = (Thread) OWNER.compareAndExchange(this, null, current);
        if (previous == null || previous == current) {
            return;
        }
        throw new FatalPipelineException(
                ErrorClass.ENCODE,
                "AvroRowTranscoder " + this + " is used by threads '"
                        + previous.getName() + "' and '" + current.getName()
                        + "': one instance must serve one lane (it "
                        + "reuses its cursor, so sharing it corrupts rows). Call build() inside the ChainFactory lambda, e.g. "
                        + "ctx -> Chains.from(ctx, Deserializer.payload()).sink(builder.build(), router), and share the "
                        + "AvroRowTranscoder.Builder instead",
                null);
    }

    private Compiled lookup(int id) {
        Compiled compiled = plans.get(id);
        if (compiled == null) {
            compiled = shared.compiled(id);
            plans.put(id, compiled);
        }
        use(compiled);
        lastId = id;
        return compiled;
    }

    private void use(Compiled compiled) {
        if (compiled.plan != null) {
            in.ensureMarks(compiled.plan.markCount);
        }
        last = compiled;
    }

    @Override
    public String toString() {
        return "AvroRowTranscoder[" + shared.mapping + "]";
    }

    /** A writer schema's plan, or why it has none. */
    static final class Compiled {
        final RowPlan plan;
        final AvroMappingException error;
        final String label;

        Compiled(RowPlan plan, AvroMappingException error, String label) {
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

    /**
     * The shared part: the mapping, the wire format, and the plans compiled so far per writer schema
     * id. Thread-safe; build one per pipeline and call {@link #build()} once per lane.
     */
    public static final class Builder {
        private final AvroRowMapping mapping;
        private final SchemaRegistryClient registry;
        private final Compiled raw;
        private final ConcurrentHashMap<Integer, Compiled> byId = new ConcurrentHashMap<>();
        private final AtomicInteger compilations = new AtomicInteger();

        private Builder(AvroRowMapping mapping, SchemaRegistryClient registry, Schema rawWriter) {
            this.mapping = mapping;
            this.registry = registry;
            if (rawWriter != null) {
                compilations.incrementAndGet();
                this.raw = new Compiled(mapping.compile(rawWriter), null, rawWriter.getFullName() + " (raw)");
            } else {
                this.raw = null;
            }
        }

        /** A transcoder for one lane. */
        public AvroRowTranscoder build() {
            return new AvroRowTranscoder(this);
        }

        /** The mapping this builder's transcoders write. */
        public AvroRowMapping mapping() {
            return mapping;
        }

        /** How many writer schemas were compiled so far (each at most once per id). */
        public int compilations() {
            return compilations.get();
        }

        Compiled compiled(int id) {
            Compiled cached = byId.get(id);
            if (cached != null) {
                return cached;
            }
            Schema writer = writerSchema(id);
            // Compiled inside computeIfAbsent: exactly once per id even when lanes race on it (compiling
            // is microseconds of CPU; the registry call, the slow part, is above, outside the map's lock).
            Compiled compiled = byId.computeIfAbsent(id, key -> {
                compilations.incrementAndGet();
                return Compiled.of(mapping, writer, "id " + id + " (" + writer.getFullName() + ")");
            });
            return compiled;
        }

        private Schema writerSchema(int id) {
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
    }
}
