package dev.etl.json;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.etl.error.DeserializationException;
import dev.etl.fuzz.Budget;
import dev.etl.fuzz.Budget.Outcome;
import dev.etl.fuzz.Corpus;
import dev.etl.record.Payload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.TokenBuffer;

/**
 * The JSON deserializer's framings (one document, NDJSON, an array per message) against Jackson's
 * tree parse of the same bytes, framed by the documented rules (not by {@code FramedReader}'s code):
 * <ul>
 * <li>single: one document surrounded by JSON whitespace, nothing after it, is emitted; anything else
 *     is one error and nothing is emitted;</li>
 * <li>NDJSON: the message split at {@code \n}, each line trimmed of JSON whitespace, blank lines
 *     skipped, every line parsed on its own: the good ones are emitted in order, then one error if any
 *     line failed;</li>
 * <li>array: the message must start with {@code [}; its elements are parsed one after the other and
 *     emitted until the first malformed JSON (or the end of the array, after which nothing may follow);
 *     one error at the end if anything failed.</li>
 * </ul>
 * Each as a {@link JsonNode} tree and as a record type (well-formed documents that do not bind are
 * failures that do not stop the others: the oracle binds each document's bytes as Jackson's
 * {@code ObjectReader.readValue} does, not its tree with {@code treeToValue}, since the two differ where an
 * object repeats a name: the tree keeps the last value, binding reads each, and fails on the first that does
 * not bind: found by fuzzing, {@code "tags":"zürich", "tags": [1, 2]}). The first
 * input byte picks the framing and the target, the rest is the message. Within {@link Budget}'s bounds,
 * and only {@link DeserializationException}s.
 */
class JsonFramingFuzzTest {
    private static final JsonMapper MAPPER = JsonMapper.shared();

    /** A record target: ids must be ints, tags a list of ints, unknown properties ignored. */
    record Doc(int id, String name, List<Integer> tags) {}

    private static final ObjectReader DOC = MAPPER.readerFor(Doc.class);

    private static final JsonFraming[] FRAMINGS = JsonFraming.values();

    /** Per thread: a deserializer serves one thread, as a lane (regression mode runs each input on its own). */
    private static final ThreadLocal<List<JsonDeserializer<?>>> DESERIALIZERS = ThreadLocal.withInitial(() -> {
        List<JsonDeserializer<?>> all = new ArrayList<>();
        for (JsonFraming framing : FRAMINGS) {
            all.add(JsonDeserializer.tree().framing(framing).build());
            all.add(JsonDeserializer.forType(Doc.class).framing(framing).build());
        }
        return all;
    });

    /** What the framing should do with a message: the values in order, and whether it fails. */
    private record Expected(List<Object> values, boolean fails, String why) {}

    @FuzzTest
    void framingsMatchJacksonTreeParse(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int pick = (input[0] & 0xff) % (FRAMINGS.length * 2);
        JsonFraming framing = FRAMINGS[pick / 2];
        boolean tree = pick % 2 == 0;
        JsonDeserializer<?> deserializer = DESERIALIZERS.get().get(pick);
        int length = input.length - 1;
        // The message inside a larger array: reads must stay within it.
        byte[] framed = new byte[length + 4];
        Arrays.fill(framed, (byte) '[');
        System.arraycopy(input, 1, framed, 2, length);
        String what = "the JSON deserializer (" + framing + ", " + (tree ? "tree" : "record") + ")";

        List<Object> emitted = new ArrayList<>();
        Outcome<Object> actual = Budget.run(what, length, 1 << 20, 1024, () -> {
            emitted.clear(); // Budget may run the call twice
            deserializer.deserialize(new Payload(), new Payload().wrap(framed, 2, length), META, emitted::add);
            return null;
        });
        if (!actual.ok()) {
            Budget.expectDeclared(what, actual.failure(), DeserializationException.class);
        }
        Expected expected = switch (framing) {
            case SINGLE -> single(framed, 2, 2 + length, tree);
            case NDJSON -> ndjson(framed, 2, 2 + length, tree);
            case ARRAY -> array(framed, 2, 2 + length, tree);
        };
        if (!emitted.equals(expected.values) || actual.ok() == expected.fails) {
            throw new AssertionError(what + " differs from Jackson's tree parse\nmessage  "
                    + printable(framed, 2, length) + "\nexpected " + expected.values
                    + (expected.fails ? " then a failure (" + expected.why + ")" : "") + "\nemitted  " + emitted
                    + (actual.ok() ? "" : " then " + actual.failure()));
        }
    }

    // ---- the oracle -----------------------------------------------------------------------------

    /** A document parsed as a tree and, for the record target, bound; or why not. */
    private static Object document(byte[] data, int from, int to, boolean tree) throws Exception {
        try (JsonParser parser = MAPPER.createParser(data, from, to - from)) {
            JsonNode node = MAPPER.readTree(parser);
            if (node == null || node.isMissingNode()) {
                throw new IllegalArgumentException("no document");
            }
            if (parser.nextToken() != null) {
                throw new IllegalArgumentException("content after the document");
            }
            return bind(node, tree, data, from, to);
        }
    }

    private static Object bindTokens(JsonNode node, TokenBuffer tokens) {
        if (node.isNull()) {
            throw new IllegalArgumentException("null");
        }
        return DOC.readValue(tokens.asParser());
    }

    /** The document {@code node}, parsed from {@code data[from, to)}: the tree, or its bytes bound to a record. */
    private static Object bind(JsonNode node, boolean tree, byte[] data, int from, int to) {
        if (tree) {
            return node;
        }
        if (node.isNull()) {
            throw new IllegalArgumentException("null");
        }
        return DOC.readValue(data, from, to - from);
    }

    private static Expected single(byte[] data, int from, int to, boolean tree) {
        try {
            return new Expected(List.of(document(data, from, to, tree)), false, null);
        } catch (Exception e) {
            return new Expected(List.of(), true, e.toString());
        }
    }

    private static Expected ndjson(byte[] data, int from, int to, boolean tree) {
        List<Object> values = new ArrayList<>();
        String why = null;
        int lineStart = from;
        while (lineStart < to) {
            int lineEnd = lineStart;
            while (lineEnd < to && data[lineEnd] != '\n') {
                lineEnd++;
            }
            int start = lineStart;
            int end = lineEnd;
            while (start < end && isWhitespace(data[start])) {
                start++;
            }
            while (end > start && isWhitespace(data[end - 1])) {
                end--;
            }
            if (start < end) {
                try {
                    values.add(document(data, start, end, tree));
                } catch (Exception e) {
                    why = why != null ? why : "line at byte " + (lineStart - from) + ": " + e;
                }
            }
            lineStart = lineEnd + 1;
        }
        return new Expected(values, why != null, why);
    }

    private static Expected array(byte[] data, int from, int to, boolean tree) {
        List<Object> values = new ArrayList<>();
        String why = null;
        try (JsonParser parser = MAPPER.createParser(data, from, to - from)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                return new Expected(values, true, "not an array");
            }
            while (true) {
                JsonToken token = parser.nextToken();
                if (token == JsonToken.END_ARRAY) {
                    if (parser.nextToken() != null) {
                        why = "content after the array";
                    }
                    break;
                }
                if (token == null) {
                    why = "the array does not end";
                    break;
                }
                // The element's tokens as they come (a repeated name kept), for the tree and the binding.
                TokenBuffer tokens = TokenBuffer.forBuffering(parser, ObjectReadContext.empty());
                tokens.copyCurrentStructure(parser);
                try {
                    JsonNode node = MAPPER.readTree(tokens.asParser());
                    values.add(tree ? node : bindTokens(node, tokens));
                } catch (RuntimeException e) {
                    why = why != null ? why : "element " + values.size() + ": " + e; // does not bind: go on
                }
            }
        } catch (JacksonException e) {
            why = "malformed: " + e.getOriginalMessage();
        }
        return new Expected(values, why != null, why);
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }

    private static String printable(byte[] b, int from, int length) {
        return new String(b, from, length, StandardCharsets.ISO_8859_1)
                        .replace("\n", "\\n")
                        .replace("\r", "\\r") + " (hex " + HexFormat.of().formatHex(b, from, from + length) + ")";
    }

    private static final dev.etl.record.RecordMeta META = new dev.etl.record.RecordMeta() {
        @Override
        public int partition() {
            return 0;
        }

        @Override
        public long offset() {
            return 7;
        }

        @Override
        public long timestampMs() {
            return -1;
        }

        @Override
        public int keyHash() {
            return 0;
        }

        @Override
        public Payload sourceKey() {
            return null;
        }

        @Override
        public Payload sourceValue() {
            return null;
        }
    };

    // ---- seeds ----------------------------------------------------------------------------------

    static Map<String, byte[]> seeds() {
        String doc = "{\"id\": 1, \"name\": \"zürich\", \"tags\": [1, 2], \"extra\": {\"x\": [true, null, 1.5e3]}}";
        String bad = "{\"id\": \"not a number\", \"name\": null}";
        Map<String, String> messages = new LinkedHashMap<>();
        messages.put("single-0", doc);
        messages.put("single-1", "  [1, \"two\", {\"three\": 3}]\r\n");
        messages.put("ndjson-0", doc + "\n\n" + bad + "\r\n{\"id\": 2}\n");
        messages.put("ndjson-1", "{\"id\": 3, \"tags\": []}\n  \t\n{\"id\": 4");
        messages.put("array-0", "[" + doc + ", " + bad + ", {\"id\": 5}, null]");
        messages.put("array-1", "[] ");
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (Map.Entry<String, String> m : messages.entrySet()) {
            int framing = m.getKey().startsWith("single") ? 0 : m.getKey().startsWith("ndjson") ? 1 : 2;
            byte[] text = m.getValue().getBytes(StandardCharsets.UTF_8);
            for (int target = 0; target < 2; target++) {
                byte[] input = new byte[text.length + 1];
                input[0] = (byte) (framing * 2 + target);
                System.arraycopy(text, 0, input, 1, text.length);
                seeds.put(m.getKey() + (target == 0 ? "-tree" : "-record"), input);
            }
        }
        return seeds;
    }

    @Test
    void seedCorpusIsCurrent() {
        Corpus.check(JsonFramingFuzzTest.class, "framingsMatchJacksonTreeParse", seeds());
    }
}
