package dev.etl.avro;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds on what one Avro body may claim, applied by the decoders etl has of its own: the fast path of
 * {@link AvroDeserializer} (its skipper of removed fields included), the Avro → RowBinary transcoder
 * ({@code dev.etl.avro.clickhouse.AvroRowTranscoder}) and the S3 backfill's reader of Avro object container
 * files. An Avro array or map is written in blocks, each a count of items and then the items; a count
 * costs a few bytes whatever it says, so without a bound a payload of a few bytes claims billions of
 * items. A body over a bound is malformed: the record fails with a
 * {@link dev.etl.error.DeserializationException} and gets its stage's error policy (skip, dead letter or
 * fail); nothing is allocated or looped over for the items it claimed.
 *
 * <ul>
 * <li><b>Items of one array or map</b>, all its blocks together: at most {@link #maxCollectionItems()},
 *     set by Avro's own system property {@value #MAX_COLLECTION_ITEMS_PROPERTY} (so one setting bounds
 *     Avro's readers and ours), default {@value #DEFAULT_MAX_COLLECTION_ITEMS} as Avro's. Items that take
 *     bytes are bounded by the body's size anyway; this bound is for a limit lower than that.</li>
 * <li><b>Items that take no bytes</b>, per record, over all its arrays: at most
 *     {@link #maxZeroByteItems()}, set by Avro's system property {@value #MAX_ZERO_BYTE_ITEMS_PROPERTY},
 *     which bounds the same items in Avro 1.12's {@code GenericDatumReader}. The elements of an
 *     {@code array<null>}, of an array of {@code fixed} of size 0 or of records whose fields are all of
 *     these take no input at all, so the body's size bounds nothing: 10 bytes claim 2^31 of them, which
 *     a decoder would loop over for minutes or materialise into gigabytes. Default
 *     {@value #DEFAULT_MAX_ZERO_BYTE_ITEMS} (2^20), not Avro's default (an eighth of a quarter of the
 *     heap, tens of millions of items): about as many items as a Kafka message of the broker's default
 *     {@code max.message.bytes} (1 MiB) holds when each takes one byte, so a record of such items costs no
 *     more than a legitimate message of the largest default size (a few milliseconds, at most a mebibyte
 *     of null flags in a row), and no real data has a million items of nothing in one record. The S3
 *     reader applies the same bound to the records of one split whose schema takes no bytes.</li>
 * </ul>
 *
 * <p>Both are read once, when this class is loaded (as Avro reads its own), so set them on the command
 * line ({@code -Dorg.apache.avro.limits.collectionItems.maxAllocation=4194304}, or in
 * {@code JAVA_TOOL_OPTIONS}). A value that is not a non-negative integer is ignored with a warning, as
 * Avro does; values above {@value #DEFAULT_MAX_COLLECTION_ITEMS} are lowered to it.
 */
public final class AvroLimits {
    /** Avro's system property for the items of one array or map: {@value}. */
    public static final String MAX_COLLECTION_ITEMS_PROPERTY = "org.apache.avro.limits.collectionItems.maxLength";

    /** Avro's system property for the items that take no bytes in one record: {@value}. */
    public static final String MAX_ZERO_BYTE_ITEMS_PROPERTY = "org.apache.avro.limits.collectionItems.maxAllocation";

    /** The default bound on the items of one array or map, Avro's: {@value}. */
    public static final int DEFAULT_MAX_COLLECTION_ITEMS = Integer.MAX_VALUE - 8;

    /** The default bound on the items that take no bytes in one record: {@value} (2^20). */
    public static final int DEFAULT_MAX_ZERO_BYTE_ITEMS = 1 << 20;

    private static final Logger log = LoggerFactory.getLogger(AvroLimits.class);

    private static final int MAX_COLLECTION_ITEMS = limit(
            MAX_COLLECTION_ITEMS_PROPERTY,
            System.getProperty(MAX_COLLECTION_ITEMS_PROPERTY),
            DEFAULT_MAX_COLLECTION_ITEMS);
    private static final int MAX_ZERO_BYTE_ITEMS = limit(
            MAX_ZERO_BYTE_ITEMS_PROPERTY,
            System.getProperty(MAX_ZERO_BYTE_ITEMS_PROPERTY),
            DEFAULT_MAX_ZERO_BYTE_ITEMS);

    private AvroLimits() {}

    /** The most items one array or map may hold, all its blocks together ({@value #MAX_COLLECTION_ITEMS_PROPERTY}). */
    public static int maxCollectionItems() {
        return MAX_COLLECTION_ITEMS;
    }

    /**
     * The most array items that take no bytes one record may hold, all its arrays together
     * ({@value #MAX_ZERO_BYTE_ITEMS_PROPERTY}); for the S3 reader, the most records of one split whose schema
     * takes no bytes.
     */
    public static int maxZeroByteItems() {
        return MAX_ZERO_BYTE_ITEMS;
    }

    /** The value of a property: {@code fallback} when absent or not a non-negative integer; at most the default collection bound. */
    static int limit(String property, String value, int fallback) {
        if (value == null) {
            return fallback;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            parsed = -1;
        }
        if (parsed < 0) {
            log.warn(
                    "ignoring system property {}={}: not a non-negative integer; the limit stays {}",
                    property,
                    value,
                    fallback);
            return fallback;
        }
        return (int) Math.min(parsed, DEFAULT_MAX_COLLECTION_ITEMS);
    }
}
