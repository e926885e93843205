package dev.etl.avro.clickhouse;

import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.WriterSchemas;
import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroFraming;
import dev.etl.avro.binary.MalformedAvroException;
import dev.etl.avro.clickhouse.WriterPlans.Compiled;
import dev.etl.clickhouse.ColumnEncodeException;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.MultiRowEncoder;
import dev.etl.sink.RowBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.apache.avro.Schema;
import org.jspecify.annotations.Nullable;

/**
 * Writes one RowBinary row per Avro payload, straight from the Avro bytes: no record is
 * materialised, nothing is allocated per record. A {@link MultiRowEncoder} of the raw {@link Payload},
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
 * <p><b>Rows without a registry id.</b> The Confluent mode also reads payloads in Avro's single-object
 * encoding ({@code C3 01}, the writer schema's 8-byte little-endian CRC-64-AVRO fingerprint, the body;
 * a Confluent payload starts with 0x00, so the two cannot be confused): the rows a backfill reads
 * from object storage, whose writer schemas it registers in {@link WriterSchemas#shared()} (or the
 * {@link Builder#writerSchemas set given to the builder}) before their first row. Plans are compiled
 * and cached per fingerprint exactly as per id. A fingerprint not registered (yet) fails each of its
 * payloads and is not remembered, so the first payload after its registration is transcoded.
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
 * <li>{@link DeserializationException} with the schema id (-1 for a single-object payload, whose
 *     message names the fingerprint): a payload shorter than its header, a bad magic byte, an unknown
 *     schema id or fingerprint, a writer schema the mapping cannot read (with the
 *     {@link AvroMappingException} as cause), a body that does not match its writer schema
 *     (truncated, malformed varint, bad union or enum index, an invalid block count, trailing bytes) or
 *     claims more array items than {@link dev.etl.avro.AvroLimits} allows, a tombstone;</li>
 * <li>{@link FatalPipelineException}: the registry could not be asked (unreachable, slow, 5xx after
 *     the client's bounded retries) — the pipeline fails rather than drop good records, as
 *     {@code AvroDeserializer} does by default.</li>
 * </ul>
 */
public final class AvroRowTranscoder implements MultiRowEncoder<Payload> {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(AvroRowTranscoder.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What {@link #last} was looked up by. */
    private static final byte LAST_NONE = 0;

    private static final byte LAST_ID = 1;
    private static final byte LAST_FINGERPRINT = 2;

    private final Builder shared;
    /**
     * The mapping this lane writes (and its shared plans): the builder's generation of the
     * {@link #layout()} last adopted. Replaced only by {@link #adoptLayout}, on the lane's thread.
     */
    private Generation generation;
    /** The thread of the first call; set once (CAS), then read plainly on every call. */
    @SuppressWarnings("unused") // accessed through OWNER as well
    private Thread owner;

    private final AvroCursor in = new AvroCursor();
    private final Int2ObjectHashMap<Compiled> plans = new Int2ObjectHashMap<>();
    private final Long2ObjectHashMap<Compiled> fingerprintPlans = new Long2ObjectHashMap<>();
    private byte lastKind = LAST_NONE;
    private int lastId;
    private long lastFingerprint;
    private Compiled last;
    /** What {@link #resolve} found: the payload's plan, schema id (-1 when none) and body offset. */
    private Compiled current;

    private int currentId;
    /** The payload {@link #shardKey} scanned (identity), so that encoding it next does not scan again; else null. */
    private byte[] scannedArray;

    private int scannedOffset;
    private int scannedLength;
    private boolean scannedDropped;
    /** The plans this lane reads with: the builder's, or its view plans after {@link #views()}. */
    private WriterPlans writerPlans;
    /** This lane's view, once {@link #views()} was called; else null. */
    private AvroView view;

    private AvroRowTranscoder(Builder shared) {
        this.shared = shared;
        this.generation = shared.latest;
        this.writerPlans = generation.plans;
        if (generation.raw != null) {
            use(generation.raw);
        }
    }

    /**
     * The record-view path: a deserializer that reads each payload into this lane's {@link AvroView} (one
     * instance, reused), for a chain whose Java code reads fields through handles and sets the mapping's
     * {@link AvroRowMapping.Builder#computed(String, String) computed columns}, ending in
     * {@link #viewEncoder()}:
     *
     * <pre>{@code
     * AvroRowTranscoder t = transcoders.build();                  // per lane
     * return Chains.from(ctx, t.views())
     *         .filter("not-cancelled", v -> v.ordinal(status) != cancelled)
     *         .map("totals", v -> v.set(lineCount, v.size(lines)))
     *         .sink(t.viewEncoder(), t.viewRouter());
     * }</pre>
     *
     * <p>Per payload: the writer schema is resolved as {@link #encodeRows} resolves it (one plan per writer
     * schema, compiled once per process, which also marks every field of the reader schema), the body is scanned
     * once (marks, the mapping's {@link AvroRowMapping.Builder#dropWhen conditions}, the shard key, the body's
     * end), and the view is passed on; a record a condition drops is not passed on (it resolves like a filtered
     * one). Errors are {@link #encodeRows}'s, thrown here (the deserialize stage's policy applies). Call once per
     * lane transcoder, before its first payload; this transcoder then reads views only.
     *
     * @throws IllegalStateException after this transcoder read a payload
     */
    public dev.etl.deser.Deserializer<AvroView> views() {
        if (view == null) {
            if (lastKind != LAST_NONE) {
                throw new IllegalStateException(
                        this + " already read payloads: call views() on a new transcoder, before its first record");
            }
            writerPlans = shared.viewPlans();
            view = shared.viewFields().view(in);
            if (generation.raw != null) {
                use(shared.rawView());
            }
        }
        return (key, value, meta, out) -> {
            if (readView(value)) {
                out.collect(view);
            }
        };
    }

    /** Reads the payload into the view; false when a condition of the mapping drops the record. */
    private boolean readView(Payload value) {
        if (!value.isPresent()) {
            throw tombstone();
        }
        scannedArray = null;
        resolve(value.array(), value.offset(), value.length());
        Compiled compiled = current;
        ScanPlan plan = (ScanPlan) compiled.plan;
        boolean dropped;
        try {
            dropped = plan.scan(in);
        } catch (MalformedAvroException e) {
            throw malformed(compiled, e);
        }
        if (dropped || plan.dropAll) {
            return false;
        }
        view.begin(plan.view, plan.hasKey() ? plan.key(in) : 0);
        return true;
    }

    /**
     * The sink's encoder of the view path: writes the rows of the view's record (one, or one per element of the
     * exploded array) from the scan {@link #views()} made, the computed columns from the view's slots; no second
     * scan. Refuses a view it has already encoded (an operator that kept the view past its record).
     *
     * @throws IllegalStateException before {@link #views()}
     */
    public MultiRowEncoder<AvroView> viewEncoder() {
        requireViews("viewEncoder()");
        return new MultiRowEncoder<>() {
            @Override
            public int encodeRows(AvroView v, RecordMeta meta, RowBuffer out) {
                return encodeView(v, out);
            }

            @Override
            public String toString() {
                return "AvroRowTranscoder.viewEncoder[" + generation.mapping + "]";
            }
        };
    }

    private int encodeView(AvroView v, RowBuffer out) {
        if (v != view) {
            throw new IllegalArgumentException(
                    v + " is not this lane's view: use the viewEncoder() of the " + "transcoder whose views() read it");
        }
        v.beginEncode();
        Compiled compiled = current;
        try {
            return ((ScanPlan) compiled.plan).emit(in, out, false, v);
        } catch (MalformedAvroException e) {
            throw malformed(compiled, e);
        }
    }

    /**
     * A router for the view path that shards by the mapping's {@link AvroRowMapping.Builder#shardKey shard key}
     * (read by the scan), as {@link #shardKeyRouter()} does for payloads.
     *
     * @throws IllegalStateException before {@link #views()}, or when the mapping names no shard key
     */
    public KeyHashRouter<AvroView> viewRouter() {
        requireViews("viewRouter()");
        if (generation.mapping.shardKey() == null) {
            throw new IllegalStateException(generation.mapping
                    + " names no shard key: declare it with AvroRowMapping.Builder.shardKey(fieldPath)");
        }
        return KeyHashRouter.byKey(AvroView::key);
    }

    private void requireViews(String what) {
        if (view == null) {
            throw new IllegalStateException(what + " encodes what views() read: call views() on this transcoder first");
        }
    }

    /**
     * Confluent wire format (magic byte 0, 4-byte schema id, body), writer schemas from
     * {@code registry}; and Avro single-object payloads, writer schemas from the
     * {@link Builder#writerSchemas(WriterSchemas) WriterSchemas}.
     */
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
    public int encodeRows(Payload value, RecordMeta meta, RowBuffer out) {
        if (!value.isPresent()) {
            throw tombstone();
        }
        return transcode(value.array(), value.offset(), value.length(), out);
    }

    /**
     * Appends the payload's one row (a mapping without {@link AvroRowMapping.Builder#explode explode}
     * or conditions); the sink stage calls {@link #encodeRows}.
     *
     * @throws IllegalStateException when the payload has no row or several
     */
    @Override
    public void encode(Payload value, RecordMeta meta, RowBuffer out) {
        int rows = encodeRows(value, meta, out);
        if (rows != 1) {
            throw new IllegalStateException(this + " wrote " + rows + " rows for one payload: call encodeRows");
        }
    }

    private static DeserializationException tombstone() {
        return DeserializationException.of(
                -1,
                "a tombstone (absent value) has no row: filter tombstones before "
                        + "the sink (.filter(\"not-tombstone\", Payload::isPresent))",
                null);
    }

    /**
     * Appends the rows of the payload in {@code array[offset, offset + length)} to {@code out}: one,
     * or with {@link AvroRowMapping.Builder#explode explode} one per element, none when a
     * {@link AvroRowMapping.Builder#dropWhen condition} drops the record.
     *
     * @return how many rows were appended
     */
    public int transcode(byte[] array, int offset, int length, RowBuffer out) {
        byte[] scanned = scannedArray;
        scannedArray = null;
        if (scanned == array && scannedOffset == offset && scannedLength == length) {
            // shardKey(...) scanned this payload just now (routing, then encoding): emit from that scan.
            return emit(out, scannedDropped);
        }
        resolve(array, offset, length);
        Compiled compiled = current;
        try {
            return compiled.plan.write(in, out);
        } catch (MalformedAvroException e) {
            throw malformed(compiled, e);
        }
    }

    /**
     * The {@link AvroRowMapping.Builder#shardKey shard key} of the payload (the field's value), for
     * routing: {@link #shardKeyRouter()} shards by it as {@code KeyHashRouter.byKey} shards by the
     * same value of an object. Scans the payload, which the next {@link #encodeRows} of the same
     * payload then does not repeat.
     *
     * @throws IllegalStateException when the mapping names no shard key
     * @throws DeserializationException as {@link #encodeRows} does for a payload it cannot read
     */
    public long shardKey(Payload value) {
        if (!value.isPresent()) {
            throw tombstone();
        }
        byte[] array = value.array();
        int offset = value.offset();
        int length = value.length();
        scannedArray = null;
        resolve(array, offset, length);
        Compiled compiled = current;
        if (!(compiled.plan instanceof ScanPlan plan) || !plan.hasKey()) {
            throw new IllegalStateException(generation.mapping
                    + " names no shard key: declare it with AvroRowMapping.Builder.shardKey(fieldPath)");
        }
        try {
            scannedDropped = plan.scan(in);
        } catch (MalformedAvroException e) {
            throw malformed(compiled, e);
        }
        long key = plan.key(in);
        scannedArray = array;
        scannedOffset = offset;
        scannedLength = length;
        return key;
    }

    /**
     * A router for this lane's sink stage that shards by {@link #shardKey}: {@code
     * .sink(transcoder, transcoder.shardKeyRouter())}.
     */
    public KeyHashRouter<Payload> shardKeyRouter() {
        if (generation.mapping.shardKey() == null) {
            throw new IllegalStateException(generation.mapping
                    + " names no shard key: declare it with AvroRowMapping.Builder.shardKey(fieldPath)");
        }
        return KeyHashRouter.byKey(this::shardKey);
    }

    private int emit(RowBuffer out, boolean dropped) {
        Compiled compiled = current;
        try {
            return ((ScanPlan) compiled.plan).emit(in, out, dropped);
        } catch (MalformedAvroException e) {
            throw malformed(compiled, e);
        }
    }

    private DeserializationException malformed(Compiled compiled, MalformedAvroException e) {
        return DeserializationException.of(
                currentId, "Avro body does not match writer schema " + compiled.label + ": " + e.getMessage(), null);
    }

    /** Finds the payload's plan ({@link #current}) and wraps the cursor around its body. */
    private void resolve(byte[] array, int offset, int length) {
        if (owner != Thread.currentThread()) {
            claimOwner();
        }
        Compiled compiled;
        int id;
        int bodyOffset;
        if (generation.raw != null) {
            compiled = last;
            id = -1;
            bodyOffset = offset;
        } else if (AvroFraming.isConfluent(array, offset, length)) {
            id = AvroFraming.schemaId(array, offset);
            compiled = lastKind == LAST_ID && id == lastId ? last : lookup(id);
            bodyOffset = offset + AvroFraming.CONFLUENT_HEADER_LENGTH;
        } else {
            compiled = singleObject(array, offset, length);
            id = -1;
            bodyOffset = offset + AvroFraming.SINGLE_OBJECT_HEADER_LENGTH;
        }
        if (compiled.error != null) {
            throw DeserializationException.of(
                    id,
                    "writer schema " + compiled.label + " cannot be transcoded: " + compiled.error.getMessage(),
                    compiled.error);
        }
        current = compiled;
        currentId = id;
        in.wrap(array, bodyOffset, length - (bodyOffset - offset));
    }

    /** The plan of a single-object payload; else the payload is too short or of a bad magic byte. */
    private Compiled singleObject(byte[] array, int offset, int length) {
        if (!AvroFraming.isSingleObject(array, offset, length)) {
            throw AvroFraming.unframed(array, offset, length);
        }
        if (length < AvroFraming.SINGLE_OBJECT_HEADER_LENGTH) {
            throw AvroFraming.shortSingleObject(length);
        }
        long fingerprint = AvroFraming.fingerprint(array, offset);
        if (lastKind == LAST_FINGERPRINT && fingerprint == lastFingerprint) {
            return last;
        }
        Compiled compiled = fingerprintPlans.get(fingerprint);
        if (compiled == null) {
            compiled = writerPlans.byFingerprint(fingerprint);
            fingerprintPlans.put(fingerprint, compiled);
        }
        use(compiled);
        lastKind = LAST_FINGERPRINT;
        lastFingerprint = fingerprint;
        return compiled;
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
            compiled = writerPlans.byId(id);
            plans.put(id, compiled);
        }
        use(compiled);
        lastKind = LAST_ID;
        lastId = id;
        return compiled;
    }

    private void use(Compiled compiled) {
        if (compiled.plan != null) {
            in.ensureMarks(compiled.plan.markCount());
        }
        last = compiled;
    }

    @Override
    public String toString() {
        return "AvroRowTranscoder[" + generation.mapping + "]";
    }

    /**
     * The column layout of the rows this lane writes now: 0 for the builder's first mapping, then the
     * layout each adopted {@link Builder#evolve evolution} was published with.
     */
    @Override
    public int layout() {
        return generation.layout;
    }

    /**
     * The layout of the builder's latest mapping: one volatile read, asked by the lane between source
     * batches. When it differs from {@link #layout()}, the lane seals every open block of this sink (rows of
     * the old layout go out with the old column list) and then calls {@link #adoptLayout}.
     */
    @Override
    public int requestedLayout() {
        return shared.latest.layout;
    }

    /**
     * Switches this lane to the mapping published with {@code layout}: the lane's per-writer-schema plans are
     * dropped, so each writer schema is compiled against the new mapping (once per process, in that mapping's
     * shared cache) at its next payload; a writer schema older than the new reader gets the reader defaults
     * of the fields it lacks. Lane thread only, between records (the lane calls it after sealing its blocks).
     *
     * @throws IllegalArgumentException when no mapping was published with {@code layout}
     */
    @Override
    public void adoptLayout(int layout) {
        if (layout == generation.layout) {
            return;
        }
        generation = shared.generation(layout);
        writerPlans = generation.plans;
        plans.clear();
        fingerprintPlans.clear();
        lastKind = LAST_NONE;
        last = null;
        current = null;
        scannedArray = null;
        if (generation.raw != null) {
            use(generation.raw);
        }
    }

    /**
     * The shared part: the mapping, the wire format, and the plans compiled so far per writer schema
     * id and fingerprint. Thread-safe; build one per pipeline and call {@link #build()} once per lane.
     */
    public static final class Builder {
        private final SchemaRegistryClient registry;
        private final Schema rawWriter;
        /**
         * The latest generation, published by {@link #evolve} with one volatile write (its fields are final,
         * so a lane that reads it sees them complete); each lane reads it once per source batch.
         */
        private volatile Generation latest;
        /** Every generation by layout, for {@link AvroRowTranscoder#adoptLayout}; guarded by {@code this}. */
        private final List<Generation> generations = new ArrayList<>();
        /** {@link #onUnreadWriterFields}'s listener, or null. */
        private volatile @Nullable Runnable unreadListener;

        private volatile boolean built;
        /** The view path's fields and plans (every reader field marked), made at the first views(). */
        private AvroView.Fields viewFields;

        private WriterPlans viewPlans;
        private Compiled rawView;

        private Builder(AvroRowMapping mapping, SchemaRegistryClient registry, Schema rawWriter) {
            this.registry = registry;
            this.rawWriter = rawWriter;
            this.latest = new Generation(mapping, registry, rawWriter, 0, WriterSchemas.shared());
            this.latest.plans.onUnreadFields(this::unreadFieldsSeen);
            this.generations.add(this.latest);
        }

        /**
         * Publishes {@code mapping} as the one lanes write from now on, under column layout {@code layout}
         * (the sink's number for the new column list, e.g. {@code ColumnLayouts.register(mapping.columns())}):
         * each lane sees it at its next {@link AvroRowTranscoder#requestedLayout()}, seals its blocks of the old
         * layout and adopts it. The new mapping gets its own plan cache (every writer schema is compiled against
         * it once); a raw builder compiles its writer schema now. Thread-safe; rows written before stay as they
         * were.
         *
         * @return {@code layout}
         * @throws IllegalArgumentException when {@code layout} is the latest one's, or negative
         * @throws AvroMappingException     on a raw builder whose writer schema the new mapping cannot read
         */
        public synchronized int evolve(AvroRowMapping mapping, int layout) {
            Objects.requireNonNull(mapping, "mapping");
            if (viewFields != null) {
                throw new IllegalStateException("the record view path does not evolve: its field handles were made "
                        + "against the reader schema of " + latest.mapping + ", so a new mapping would leave them "
                        + "reading other fields; restart the pipeline with the new mapping instead");
            }
            Generation previous = latest;
            if (layout < 0 || layout == previous.layout) {
                throw new IllegalArgumentException("layout " + layout + " is the latest already or negative: "
                        + "a new mapping needs its own layout (the lanes switch when the layout differs)");
            }
            Generation next = new Generation(mapping, registry, rawWriter, layout, previous.plans.writerSchemas());
            next.plans.onUnreadFields(this::unreadFieldsSeen);
            generations.add(next);
            latest = next;
            return layout;
        }

        /**
         * Calls {@code listener} whenever a lane compiles a writer schema that has fields the reader schema lacks
         * (after the WARN that names them), on that lane's thread, so it must not block: auto-evolve's watch uses
         * it to look at the subject at once instead of at its next interval, which shortens the time in which
         * records of a new schema are written without their new fields. One listener; null removes it.
         */
        public void onUnreadWriterFields(@Nullable Runnable listener) {
            this.unreadListener = listener;
        }

        private void unreadFieldsSeen() {
            Runnable listener = unreadListener;
            if (listener != null) {
                listener.run();
            }
        }

        /** The layout of the latest mapping: 0 until the first {@link #evolve}. */
        public int layout() {
            return latest.layout;
        }

        synchronized Generation generation(int layout) {
            for (int i = generations.size() - 1; i >= 0; i--) {
                Generation g = generations.get(i);
                if (g.layout == layout) {
                    return g;
                }
            }
            throw new IllegalArgumentException("no mapping was published with layout " + layout + " by " + this);
        }

        synchronized AvroView.Fields viewFields() {
            if (viewFields == null) {
                viewFields = AvroView.fields(latest.mapping);
            }
            return viewFields;
        }

        synchronized WriterPlans viewPlans() {
            if (viewPlans == null) {
                viewPlans = new WriterPlans(latest.mapping, registry, viewFields());
                viewPlans.writerSchemas(latest.plans.writerSchemas());
            }
            return viewPlans;
        }

        synchronized Compiled rawView() {
            if (rawView == null) {
                rawView = viewPlans().raw(rawWriter);
            }
            return rawView;
        }

        /**
         * Where single-object payloads find their writer schema by fingerprint (default
         * {@link WriterSchemas#shared()}, where a backfill registers its files' schemas); another
         * instance isolates a test. Call it before the first {@link #build()}.
         *
         * @throws IllegalStateException on a {@link #raw raw} builder (raw bodies have no header that
         *         could name a writer schema), or after {@link #build()}
         */
        public Builder writerSchemas(WriterSchemas writerSchemas) {
            Objects.requireNonNull(writerSchemas, "writerSchemas");
            if (rawWriter != null) {
                throw new IllegalStateException("writerSchemas(...) applies to confluent(mapping, registry): raw "
                        + "bodies have no header that could name a single-object writer schema");
            }
            if (built) {
                throw new IllegalStateException(
                        "writerSchemas(...) must be set before the first build(): lanes already read with the other");
            }
            latest.plans.writerSchemas(writerSchemas);
            synchronized (this) {
                if (viewPlans != null) {
                    viewPlans.writerSchemas(writerSchemas);
                }
            }
            return this;
        }

        /** A transcoder for one lane. */
        public AvroRowTranscoder build() {
            built = true;
            return new AvroRowTranscoder(this);
        }

        /** The mapping this builder's transcoders write: the latest one {@link #evolve} published. */
        public AvroRowMapping mapping() {
            return latest.mapping;
        }

        /**
         * How many writer schemas were compiled so far (each at most once per id or fingerprint and mapping),
         * over every mapping published, and once more for the {@link AvroRowTranscoder#views() view path} when
         * lanes read views.
         */
        public synchronized int compilations() {
            int total = viewPlans != null ? viewPlans.compilations() : 0;
            for (Generation g : generations) {
                total += g.plans.compilations();
            }
            return total;
        }

        /**
         * The fields of the writer schemas seen so far that the reader schema lacks (leaf paths, e.g. a
         * producer's new {@code channel} or {@code customer.tier}): Avro's resolution drops them, so no
         * column stores them. Each writer schema that has such fields is also logged once, at WARN. After an
         * {@link #evolve}, those of the writer schemas compiled against the new mapping: a field its reader
         * now has is no longer listed.
         */
        public Set<String> unreadWriterFields() {
            WriterPlans views;
            synchronized (this) {
                views = viewPlans;
            }
            if (views == null) {
                return latest.plans.unreadWriterFields();
            }
            Set<String> unread = new java.util.TreeSet<>(latest.plans.unreadWriterFields());
            unread.addAll(views.unreadWriterFields());
            return Set.copyOf(unread);
        }
    }

    /** One published mapping: its layout, its plans per writer schema, and a raw builder's one plan. */
    static final class Generation {
        final AvroRowMapping mapping;
        final WriterPlans plans;
        final Compiled raw;
        final int layout;

        Generation(
                AvroRowMapping mapping,
                SchemaRegistryClient registry,
                Schema rawWriter,
                int layout,
                WriterSchemas writerSchemas) {
            this.mapping = mapping;
            this.plans = new WriterPlans(mapping, registry);
            this.plans.writerSchemas(writerSchemas);
            this.raw = rawWriter != null ? plans.raw(rawWriter) : null;
            this.layout = layout;
        }
    }
}
