package dev.etl.json;

import dev.etl.error.DeserializationException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DatabindException;

/**
 * What went wrong in one message: the failed documents (lines, array elements) of a message that may
 * still have emitted good ones, and the {@link DeserializationException} that reports them all once.
 *
 * <p>One instance per deserializer, cleared at the start of every NDJSON or array message (one field
 * test when the previous message had no failure). Everything else runs on failures only and
 * allocates. The first {@value #DETAILED} failures are described, the rest counted; Jackson's own
 * message is cut to {@value #MAX_CAUSE_CHARS} characters (it may quote input), so a report stays
 * around a kilobyte whatever the message size.
 */
final class ElementFailures {
    static final int DETAILED = 3;
    static final int MAX_CAUSE_CHARS = 200;
    static final String STAGE = "deserialize";

    private final String target;
    private final String[] details = new String[DETAILED];
    private int count;
    private Throwable firstCause;
    private boolean restNotRead;

    ElementFailures(String target) {
        this.target = target;
    }

    void clear() {
        if (count != 0) {
            count = 0;
            firstCause = null;
            restNotRead = false;
            java.util.Arrays.fill(details, null);
        }
    }

    boolean isEmpty() {
        return count == 0;
    }

    int count() {
        return count;
    }

    /**
     * Records that document {@code where} (e.g. {@code line 3}) of {@code data[from, to)} failed; the
     * parser that threw started at {@code parserStart}.
     */
    void add(String where, Throwable cause, byte[] data, int from, int to, int parserStart) {
        record(where + ": " + reason(target, cause, data, from, to, parserStart), cause);
    }

    /** Records that document {@code where} was a JSON {@code null} (at {@code at}), which a user type cannot be. */
    void addNull(String where, byte[] data, int from, int to, int at) {
        record(where + ": " + nullReason(target, data, from, to, at), null);
    }

    /** Records a failure described by the caller. */
    void addReason(String where, String reason, Throwable cause) {
        record(where + ": " + reason, cause);
    }

    /** The array could not be read past the last recorded failure (malformed JSON: no safe place to resume). */
    void restNotRead() {
        restNotRead = true;
    }

    private void record(String detail, Throwable cause) {
        if (count < DETAILED) {
            details[count] = detail;
        }
        if (firstCause == null) {
            firstCause = cause;
        }
        count++;
    }

    /**
     * The one exception for this message: {@code what} ({@code "NDJSON message"}, {@code "JSON array"}),
     * how many failed and were emitted, the first failures, at source offset {@code offset}.
     */
    DeserializationException toException(String what, int emitted, long offset) {
        StringBuilder sb = new StringBuilder(256)
                .append(what)
                .append(": ")
                .append(emitted)
                .append(" emitted, ")
                .append(count)
                .append(" failed")
                .append(restNotRead ? ", the rest of the array was not read" : "")
                .append(": ");
        for (int i = 0; i < Math.min(count, DETAILED); i++) {
            sb.append(i == 0 ? "" : "; ").append(details[i]);
        }
        if (count > DETAILED) {
            sb.append("; and ").append(count - DETAILED).append(" more");
        }
        return failure(sb.toString(), firstCause, offset);
    }

    /** A failure of the whole message at source offset {@code offset} (the chain head adds the partition). */
    static DeserializationException failure(String reason, Throwable cause, long offset) {
        return new DeserializationException(STAGE, null, offset, -1, reason, cause);
    }

    /**
     * Why {@code cause} failed a document of {@code data[from, to)} read by a parser that started at
     * {@code parserStart}: what kind of failure, Jackson's message, where (byte offset from {@code from})
     * and an excerpt.
     */
    static String reason(String target, Throwable cause, byte[] data, int from, int to, int parserStart) {
        long at = from;
        String message;
        String path = "";
        if (cause instanceof JacksonException jackson) {
            TokenStreamLocation location = jackson.getLocation();
            if (location != null && location.getByteOffset() >= 0) {
                at = parserStart + location.getByteOffset();
            }
            message = String.valueOf(jackson.getOriginalMessage());
            if (jackson instanceof DatabindException) {
                String reference = jackson.getPathReference();
                path = reference == null || reference.isEmpty() ? "" : " (at " + reference + ")";
            }
        } else {
            message = String.valueOf(cause);
        }
        String kind = isMalformedInput(cause) ? "malformed JSON: " : "cannot bind to " + target + ": ";
        return kind + InputExcerpt.printable(message, MAX_CAUSE_CHARS) + path + position(data, from, to, at);
    }

    static String nullReason(String target, byte[] data, int from, int to, int at) {
        return "JSON null where " + target + " was expected" + position(data, from, to, at);
    }

    /** {@code " at byte N near '...'"}: where {@code at} is in {@code data[from, to)}, and an excerpt. */
    static String position(byte[] data, int from, int to, long at) {
        long clamped = Math.max(from, Math.min(to, at));
        return " at byte " + (clamped - from) + " near '" + InputExcerpt.around(data, from, to, clamped) + "'";
    }

    /**
     * Whether {@code cause} came from the tokenizer (malformed JSON, a stream constraint such as the
     * nesting depth) rather than from binding well-formed JSON to the target: after it the parser's
     * position cannot be trusted, so an array is not read any further. A number out of the target's range
     * ({@link InputCoercionException}) is a binding failure: the tokenizer read the number whole, only the
     * conversion to the field's type failed (found by fuzzing: an {@code int} id of 62 digits ended the
     * array there, and the elements after it were not read).
     */
    static boolean isMalformedInput(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof JacksonException
                    && !(t instanceof DatabindException)
                    && !(t instanceof InputCoercionException)) {
                return true;
            }
        }
        return false;
    }
}
