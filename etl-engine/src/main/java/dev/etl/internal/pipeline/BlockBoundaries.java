package dev.etl.internal.pipeline;

import java.util.Arrays;

/**
 * The commit-metadata format of deterministic blocks: the ends of the blocks a partition has sealed
 * beyond its committed offset, so that whoever replays the partition next seals it at exactly the same
 * offsets and rebuilds the same blocks.
 *
 * <p>Format {@code etl1:<d1>,<d2>,...}: each {@code d} is the distance, in base 36, from the previous
 * boundary (the first from the committed offset), so the committed offset plus the distances gives
 * the boundaries in ascending order. A boundary is an offset: the block before it holds the rows of
 * the records below it. (A record-internal boundary {@code d.r}, "after row r of the record at that
 * offset", is reserved for sources whose one record yields many rows, such as a backfill work item;
 * this version neither writes nor accepts it.) At most {@link #MAX_BOUNDARIES} boundaries are kept per
 * partition: 256 distances of up to 8 base-36 digits fit in Kafka's default
 * {@code offset.metadata.max.bytes} (4 KiB) with room to spare.
 *
 * <p>Metadata this class did not write (another tool's, an older format) decodes to no boundaries: the
 * replay then chooses boundaries afresh, which can only cost duplicates.
 */
public final class BlockBoundaries {
    static final String PREFIX = "etl1:";

    /** Sealed, uncommitted block ends kept per partition; at this many the lane pauses the partition. */
    static final int MAX_BOUNDARIES = 256;

    private static final long[] NONE = new long[0];

    private BlockBoundaries() {}

    /**
     * Encodes {@code boundaries[from, to)} (ascending, all greater than {@code base}) relative to
     * {@code base}; null when there are none.
     */
    static String encode(long base, long[] boundaries, int from, int to) {
        if (from >= to) {
            return null;
        }
        StringBuilder sb = new StringBuilder(PREFIX.length() + (to - from) * 5);
        sb.append(PREFIX);
        long previous = base;
        for (int i = from; i < to; i++) {
            long boundary = boundaries[i];
            if (boundary <= previous) {
                throw new IllegalArgumentException(
                        "boundaries must ascend from " + base + ": " + boundary + " after " + previous);
            }
            if (i > from) {
                sb.append(',');
            }
            sb.append(Long.toString(boundary - previous, 36));
            previous = boundary;
        }
        return sb.toString();
    }

    /**
     * The boundaries {@code metadata} records above {@code base} (the committed offset it was committed
     * with), ascending; empty for null, foreign or malformed metadata.
     */
    static long[] decode(String metadata, long base) {
        if (metadata == null || !metadata.startsWith(PREFIX) || base < 0) {
            return NONE;
        }
        String body = metadata.substring(PREFIX.length());
        if (body.isEmpty()) {
            return NONE;
        }
        String[] parts = body.split(",", -1);
        if (parts.length > MAX_BOUNDARIES * 4) {
            return NONE;
        }
        long[] out = new long[parts.length];
        long previous = base;
        for (int i = 0; i < parts.length; i++) {
            long distance;
            try {
                distance = Long.parseLong(parts[i], 36);
            } catch (NumberFormatException e) {
                return NONE;
            }
            if (distance <= 0 || previous + distance < previous) {
                return NONE;
            }
            previous += distance;
            out[i] = previous;
        }
        return out;
    }

    /** Whether {@code metadata} is in this format (recognised, possibly empty). */
    static boolean isOwn(String metadata) {
        return metadata != null && metadata.startsWith(PREFIX);
    }

    static String describe(long base, long[] boundaries) {
        return "from " + base + " " + Arrays.toString(boundaries);
    }
}
