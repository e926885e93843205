package dev.etl.json;

import dev.etl.error.DeserializationException;
import dev.etl.record.Collector;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectReader;

/**
 * Reads the values of one message in each {@link JsonFraming}, straight from the payload's array,
 * and reports the documents that failed (see {@link JsonDeserializer} for the contract). Holds the
 * readers made once per deserializer and the failures of the message being read: one per
 * deserializer, lane thread only.
 */
final class FramedReader<T> {
    /** One whole document per parse (single and NDJSON): trailing tokens fail. */
    private final ObjectReader document;
    /** Elements of an open array: the parser goes on after each. */
    private final ObjectReader element;

    private final String target;
    private final ElementFailures failures;
    private long failed;

    FramedReader(ObjectReader reader, String target) {
        this.document = reader.with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.element = reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.target = target;
        this.failures = new ElementFailures(target);
    }

    String target() {
        return target;
    }

    /** Documents (messages, lines, elements) that failed so far. */
    long failedDocuments() {
        return failed;
    }

    void single(byte[] data, int from, int to, long offset, Collector<? super T> out) {
        T decoded;
        try {
            decoded = document.readValue(data, from, to - from);
        } catch (RuntimeException e) {
            failed++;
            throw ElementFailures.failure(
                    isBlank(data, from, to)
                            ? "empty message: no JSON document"
                            : ElementFailures.reason(target, e, data, from, to, from),
                    e,
                    offset);
        }
        if (decoded == null) {
            failed++;
            throw ElementFailures.failure(
                    ElementFailures.nullReason(target, data, from, to, skipWhitespace(data, from, to)), null, offset);
        }
        out.collect(decoded);
    }

    void lines(byte[] data, int from, int to, long offset, Collector<? super T> out) {
        ElementFailures failures = this.failures;
        failures.clear();
        ObjectReader document = this.document;
        int emitted = 0;
        int line = 0;
        int lineEnd;
        for (int lineStart = from; lineStart < to; lineStart = lineEnd + 1) {
            lineEnd = lineStart;
            while (lineEnd < to && data[lineEnd] != '\n') {
                lineEnd++;
            }
            line++;
            int start = skipWhitespace(data, lineStart, lineEnd);
            if (start == lineEnd) {
                continue; // blank
            }
            int end = trimWhitespace(data, start, lineEnd);
            T decoded;
            try {
                decoded = document.readValue(data, start, end - start);
            } catch (RuntimeException e) {
                failures.add("line " + line, e, data, lineStart, end, start);
                continue;
            }
            if (decoded == null) {
                failures.addNull("line " + line, data, lineStart, end, start);
                continue;
            }
            out.collect(decoded);
            emitted++;
        }
        finish("NDJSON message", emitted, offset);
    }

    void array(byte[] data, int from, int to, long offset, Collector<? super T> out) {
        ElementFailures failures = this.failures;
        failures.clear();
        int emitted = 0;
        try (JsonParser parser = createParser(data, from, to, offset)) {
            requireArrayStart(parser, data, from, to, offset);
            // Positioned inside the array: the iterator binds element by element with one context per
            // message (not one per element, as readValue would), and after an element that did not bind
            // it skips that element's remaining tokens (resync) before the next.
            parser.clearCurrentToken();
            MappingIterator<T> values = element.readValues(parser);
            boolean complete = false;
            boolean previousFailed = false;
            for (int index = 0; ; index++) {
                T decoded;
                boolean isNull = false;
                try {
                    if (!values.hasNextValue()) {
                        complete = true;
                        break;
                    }
                    isNull = parser.currentToken() == JsonToken.VALUE_NULL;
                    decoded = values.nextValue();
                } catch (RuntimeException e) {
                    if (isNull) {
                        // Said as for a single document or a line, not as Jackson's bean deserializer does.
                        failures.addNull("element " + index, data, from, to, nullAt(parser, from, to));
                        previousFailed = false;
                        continue;
                    }
                    // hasNextValue throws while skipping the rest of the element that failed before.
                    boolean inPrevious = previousFailed
                            && values.parser().streamReadContext().getNestingDepth() > 1;
                    failures.add("element " + (inPrevious ? index - 1 : index), e, data, from, to, from);
                    if (ElementFailures.isMalformedInput(e)) {
                        failures.restNotRead();
                        break;
                    }
                    previousFailed = true;
                    continue;
                }
                previousFailed = false;
                if (decoded != null) {
                    out.collect(decoded);
                    emitted++;
                } else {
                    failures.addNull("element " + index, data, from, to, nullAt(parser, from, to));
                }
            }
            if (complete) {
                requireNothingAfterArray(parser, data, from, to);
            }
        }
        finish("JSON array", emitted, offset);
    }

    /**
     * The parser of an array message. Jackson detects the encoding when it makes the parser, and fails
     * there on bytes it cannot take for any (e.g. {@code 00 00 7F 00}: "Unsupported UCS-4 endianness"):
     * that is the message's failure, reported as every other one.
     */
    private JsonParser createParser(byte[] data, int from, int to, long offset) {
        try {
            return element.createParser(data, from, to - from);
        } catch (RuntimeException e) {
            failed++;
            throw ElementFailures.failure(
                    "not a JSON array: " + ElementFailures.reason(target, e, data, from, to, from), e, offset);
        }
    }

    private static int nullAt(JsonParser parser, int from, int to) {
        return (int)
                Math.min(to, from + Math.max(0, parser.currentTokenLocation().getByteOffset()));
    }

    private void requireArrayStart(JsonParser parser, byte[] data, int from, int to, long offset) {
        JsonToken first;
        try {
            first = parser.nextToken();
        } catch (RuntimeException e) {
            failed++;
            throw ElementFailures.failure(
                    "not a JSON array: " + ElementFailures.reason(target, e, data, from, to, from), e, offset);
        }
        if (first != JsonToken.START_ARRAY) {
            failed++;
            int at = skipWhitespace(data, from, to);
            throw ElementFailures.failure(
                    first == null
                            ? "empty message: no JSON array"
                            : "not a JSON array: it starts with " + first + " at byte " + (at - from) + " near '"
                                    + InputExcerpt.around(data, from, to, at) + "'",
                    null,
                    offset);
        }
    }

    private void requireNothingAfterArray(JsonParser parser, byte[] data, int from, int to) {
        try {
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                long at = from + parser.currentTokenLocation().getByteOffset();
                failures.addReason(
                        "after the array",
                        "content after the array: " + trailing + ElementFailures.position(data, from, to, at),
                        null);
            }
        } catch (RuntimeException e) {
            failures.add("after the array", e, data, from, to, from);
        }
    }

    private void finish(String what, int emitted, long offset) {
        ElementFailures failures = this.failures;
        if (!failures.isEmpty()) {
            failed += failures.count();
            DeserializationException e = failures.toException(what, emitted, offset);
            failures.clear();
            throw e;
        }
    }

    private static boolean isBlank(byte[] data, int from, int to) {
        return skipWhitespace(data, from, to) == to;
    }

    /** The first index in {@code [from, to)} that is not JSON whitespace (space, tab, CR, LF), or {@code to}. */
    private static int skipWhitespace(byte[] data, int from, int to) {
        int i = from;
        while (i < to && isWhitespace(data[i])) {
            i++;
        }
        return i;
    }

    /** {@code to} moved back over trailing JSON whitespace, not before {@code from}. */
    private static int trimWhitespace(byte[] data, int from, int to) {
        int i = to;
        while (i > from && isWhitespace(data[i - 1])) {
            i--;
        }
        return i;
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
