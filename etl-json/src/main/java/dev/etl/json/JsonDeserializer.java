package dev.etl.json;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.record.Collector;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Type;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Decodes JSON payloads — one document, NDJSON or a top-level array per message ({@link JsonFraming})
 * — into the user's type (Jackson databind) or a {@link JsonNode} tree (schemaless pass-through).
 *
 * <pre>{@code
 * JsonDeserializer.Builder<Order> orders = JsonDeserializer.forType(Order.class).ndjson().mapper(jsonMapper);
 * ChainFactory chain = ctx -> Chains.from(ctx, orders.build())   // build() once per lane
 *         .map("to-row", OrderRow::of)
 *         ...;
 * }</pre>
 *
 * <p><b>Jackson.</b> Jackson 3 ({@code tools.jackson}), the line Spring Boot 4 auto-configures (its
 * {@code JsonMapper} bean; pass it to {@link Builder#mapper}, so the application's modules, naming and
 * features apply). Without one, {@link JsonMapper#shared()}. The {@link ObjectReader}s are made once per
 * instance from that mapper; each document is parsed straight from the payload's array, offset and
 * length (no copy), with no per-record mapper, reader or buffer of ours. What Jackson itself allocates
 * per document remains: its parser (buffers are recycled), and the value — a new object per document
 * (immutable types such as records cannot be refilled).
 *
 * <p><b>Per lane.</b> Build one instance per lane (the {@link Builder} may be shared and built many
 * times): an instance keeps the failures of the message being read. Calling one instance from a second
 * thread (typically: {@code build()} called outside the {@code ChainFactory} lambda) is detected at that
 * thread's first call and fails the pipeline with a {@link FatalPipelineException}. Values are emitted
 * in input order, each one new (downstream may keep them).
 *
 * <p><b>Errors</b> are {@link dev.etl.error.DeserializationException}s naming the source offset
 * (the chain head adds the partition and applies the {@code deserialize} stage's policy), what failed
 * (malformed JSON, or well-formed JSON that does not bind to the target, with Jackson's message and
 * path), the byte position and an excerpt of at most 64 characters around it with control characters
 * escaped (see {@code docs/connectors/json.md}). Per framing:
 * <ul>
 * <li>{@link JsonFraming#SINGLE}: the message fails; nothing is emitted.</li>
 * <li>{@link JsonFraming#NDJSON}, {@link JsonFraming#ARRAY}: a document that fails does not stop the
 * others; every good one is emitted, in order, and then, if any failed, one exception reports them
 * all (how many, the first three with position and excerpt). So the stage's policy applies once to the
 * message: under {@code SKIP} the good documents were delivered and the message counts one skip; under
 * {@code DEAD_LETTER} the good documents were delivered and the original message is dead-lettered once,
 * its error message naming the failed lines or elements; under {@code FAIL} the pipeline fails and
 * nothing from this offset on is committed (what was emitted is replayed after a restart). In an array,
 * well-formed elements that do not bind are skipped; malformed JSON ends the array there (there is no
 * safe place to resume), and the report says the rest was not read.</li>
 * </ul>
 * <p>A failure thrown downstream while a value is being emitted is not caught here: it propagates as it
 * would from any deserializer.
 *
 * <p><b>Tombstones</b> (absent value) emit nothing and are counted ({@link #tombstones()}); their
 * offset commits like a filtered record's.
 *
 * @param <T> the emitted type
 */
public final class JsonDeserializer<T> implements Deserializer<T> {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(JsonDeserializer.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final JsonFraming framing;
    private final FramedReader<T> reader;
    /** The thread of the first call; set once (CAS), then read plainly on every call. */
    @SuppressWarnings("unused") // accessed through OWNER as well
    private Thread owner;

    private long tombstones;

    private JsonDeserializer(Builder<T> builder) {
        ObjectMapper mapper = builder.mapper != null ? builder.mapper : JsonMapper.shared();
        ObjectReader reader = builder.reader(mapper);
        for (Map.Entry<DeserializationFeature, Boolean> feature : builder.features.entrySet()) {
            reader = feature.getValue() ? reader.with(feature.getKey()) : reader.without(feature.getKey());
        }
        this.framing = builder.framing;
        this.reader = new FramedReader<>(reader, builder.targetName);
    }

    /** Instances of {@code type}, bound by the mapper's databind (records, beans, creators, modules). */
    public static <T> Builder<T> forType(Class<T> type) {
        Objects.requireNonNull(type, "type");
        return new Builder<>(type, null, type.getName());
    }

    /** Instances of a generic type, e.g. {@code new TypeReference<Map<String, Object>>() {}}. */
    public static <T> Builder<T> forType(TypeReference<T> type) {
        Objects.requireNonNull(type, "type");
        Type generic = type.getType();
        return new Builder<>(null, type, generic.getTypeName());
    }

    /**
     * Jackson's {@link JsonNode} trees, for schemaless pass-through: any well-formed JSON value is
     * emitted, a JSON {@code null} as {@code NullNode}.
     */
    public static Builder<JsonNode> tree() {
        return new Builder<>(JsonNode.class, null, JsonNode.class.getSimpleName());
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
        byte[] data = value.array();
        int from = value.offset();
        int to = from + value.length();
        switch (framing) {
            case SINGLE -> reader.single(data, from, to, meta.offset(), out);
            case NDJSON -> reader.lines(data, from, to, meta.offset(), out);
            case ARRAY -> reader.array(data, from, to, meta.offset(), out);
            default -> throw new AssertionError(framing);
        }
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
                "JsonDeserializer " + this
                        + " is used by lane threads '" + previous.getName() + "' and '" + current.getName()
                        + "': one instance must serve one lane (it keeps the state of the message it reads). Call build() "
                        + "inside the ChainFactory lambda, e.g. ctx -> Chains.from(ctx, builder.build())..., and share the "
                        + "JsonDeserializer.Builder instead",
                null);
    }

    /** Tombstones (absent values) seen and skipped by this instance. */
    public long tombstones() {
        return tombstones;
    }

    /**
     * Documents (messages, lines, array elements) this instance failed to read. A message reports its
     * failures once to the stage's policy, so this may exceed the skips the stage counted.
     */
    public long failedDocuments() {
        return reader.failedDocuments();
    }

    /** How messages are framed. */
    public JsonFraming framing() {
        return framing;
    }

    @Override
    public String toString() {
        return "JsonDeserializer[" + framing.name().toLowerCase(java.util.Locale.ROOT) + " -> " + reader.target() + "]";
    }

    /**
     * Configures deserializers: the target is chosen by the factory method, the framing defaults to
     * {@link JsonFraming#SINGLE}, the mapper to {@link JsonMapper#shared()}. Not thread-safe while being
     * configured; {@link #build()} may be called once per lane, from any thread, once configured.
     */
    public static final class Builder<T> {
        private final Class<?> type;
        private final TypeReference<T> typeReference;
        private final String targetName;
        private final Map<DeserializationFeature, Boolean> features = new EnumMap<>(DeserializationFeature.class);
        private JsonFraming framing = JsonFraming.SINGLE;
        private ObjectMapper mapper;

        private Builder(Class<?> type, TypeReference<T> typeReference, String targetName) {
            this.type = type;
            this.typeReference = typeReference;
            this.targetName = targetName;
        }

        /** How values are laid out in a message (default {@link JsonFraming#SINGLE}). */
        public Builder<T> framing(JsonFraming framing) {
            this.framing = Objects.requireNonNull(framing, "framing");
            return this;
        }

        /** {@link JsonFraming#SINGLE}: one document per message. */
        public Builder<T> single() {
            return framing(JsonFraming.SINGLE);
        }

        /** {@link JsonFraming#NDJSON}: one document per line. */
        public Builder<T> ndjson() {
            return framing(JsonFraming.NDJSON);
        }

        /** {@link JsonFraming#ARRAY}: a top-level array per message, one value per element. */
        public Builder<T> array() {
            return framing(JsonFraming.ARRAY);
        }

        /**
         * The application's mapper (in Spring Boot, the auto-configured {@code JsonMapper} bean), so its
         * modules, naming strategy and features apply. Only read when {@link #build()} makes the readers;
         * never modified.
         *
         * @throws IllegalArgumentException when the mapper is not a JSON mapper (e.g. CBOR or YAML)
         */
        public Builder<T> mapper(ObjectMapper mapper) {
            Objects.requireNonNull(mapper, "mapper");
            String format = mapper.tokenStreamFactory().getFormatName();
            if (!JsonFactory.FORMAT_NAME_JSON.equals(format)) {
                throw new IllegalArgumentException("JsonDeserializer needs a JSON mapper, got a " + format + " mapper ("
                        + mapper.getClass().getName() + ")");
            }
            this.mapper = mapper;
            return this;
        }

        /**
         * Whether a property the target type does not know fails the document (Jackson's
         * {@link DeserializationFeature#FAIL_ON_UNKNOWN_PROPERTIES}, for these deserializers only).
         * Unset: the mapper's setting (false for Jackson 3's and Spring Boot's defaults).
         */
        public Builder<T> failOnUnknownProperties(boolean fail) {
            return feature(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, fail);
        }

        /**
         * Turns a databind feature on or off for these deserializers only (the mapper is not changed).
         *
         * @throws IllegalArgumentException for {@link DeserializationFeature#FAIL_ON_TRAILING_TOKENS},
         *         which the framing decides: content after a document is always an error
         */
        public Builder<T> feature(DeserializationFeature feature, boolean enabled) {
            Objects.requireNonNull(feature, "feature");
            if (feature == DeserializationFeature.FAIL_ON_TRAILING_TOKENS) {
                throw new IllegalArgumentException("FAIL_ON_TRAILING_TOKENS is decided by the framing: content after "
                        + "a document is always an error");
            }
            features.put(feature, enabled);
            return this;
        }

        /** A new deserializer for one lane (readers made from the mapper now). */
        public JsonDeserializer<T> build() {
            return new JsonDeserializer<>(this);
        }

        ObjectReader reader(ObjectMapper mapper) {
            return typeReference != null ? mapper.readerFor(typeReference) : mapper.readerFor(type);
        }
    }
}
