package dev.etl.s3;

import org.jspecify.annotations.Nullable;

/**
 * A work item's data cannot be read past some point (a bad Avro block or sync marker, a truncated or
 * undecompressable object, a Parquet page that does not decode). The rows before it were delivered; the
 * backfill applies its corrupt-split policy to the rest ({@code fail} or {@code skip}, counted either
 * way). Bad data inside a row that the format can still delimit (a malformed NDJSON line) is not a
 * corrupt split: the row goes to the chain, whose deserializer's error policy handles it per record.
 */
public class CorruptSplitException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param what what was wrong and where (the object, the byte position or block), no data content
     */
    public CorruptSplitException(String what, @Nullable Throwable cause) {
        super(what, cause);
    }
}
