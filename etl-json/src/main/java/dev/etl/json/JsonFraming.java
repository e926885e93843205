package dev.etl.json;

/**
 * How JSON values are laid out in one message. The Spring Boot property {@code etl.json.framing} takes
 * these names in lower case ({@code single}, {@code ndjson}, {@code array}).
 */
public enum JsonFraming {
    /**
     * One JSON document per message, surrounded by optional whitespace. Anything after the document,
     * an empty or whitespace-only message, and (for a user type) a JSON {@code null} are errors.
     */
    SINGLE,
    /**
     * Newline-delimited JSON: one document per line, each line parsed and failing on its own. Lines are
     * split at {@code \n}; a trailing {@code \r} ({@code \r\n} line ends) and blank lines are ignored, so
     * an empty message emits nothing. A document may not span lines. Input must be UTF-8.
     */
    NDJSON,
    /**
     * One top-level JSON array per message; each element is one value, emitted as soon as it is parsed
     * (the array is streamed, never held whole). An empty array emits nothing; anything else than an
     * array (an empty message included) is an error.
     */
    ARRAY
}
