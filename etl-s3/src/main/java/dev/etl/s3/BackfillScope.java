package dev.etl.s3;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The objects a backfill may read: one bucket, and in it the keys under a prefix (the whole bucket for an
 * empty one) or the keys of a manifest. The same scope the plan listed, checked again for every work item
 * read: the work topic is data, and whoever can write to it must not be able to make the pipeline read
 * other objects its credentials can reach.
 *
 * <p>Under a prefix, a key with a {@code .} or {@code ..} segment is outside the scope too: object stores
 * that keep objects as files, and clients that normalise paths, may resolve it to a key outside the prefix.
 *
 * @param bucket the bucket
 * @param prefix the key prefix ({@code ""}: every key), when {@code keys} is empty
 * @param keys   the manifest's keys, or empty for a prefix
 */
public record BackfillScope(String bucket, String prefix, Set<String> keys) {

    public BackfillScope {
        Objects.requireNonNull(bucket, "bucket");
        if (bucket.isBlank()) {
            throw new IllegalArgumentException("the backfill's bucket must not be blank");
        }
        prefix = prefix == null ? "" : prefix;
        keys = keys == null ? Set.of() : Set.copyOf(keys);
        if (!prefix.isEmpty() && !keys.isEmpty()) {
            throw new IllegalArgumentException("a backfill reads the keys under a prefix or a manifest of keys, not "
                    + "both (prefix '" + prefix + "', " + keys.size() + " key(s))");
        }
    }

    /** The keys under {@code prefix} of {@code bucket} ({@code ""} or null: the whole bucket). */
    public static BackfillScope prefix(String bucket, @Nullable String prefix) {
        return new BackfillScope(bucket, prefix, Set.of());
    }

    /** The manifest {@code keys} of {@code bucket}. */
    public static BackfillScope keys(String bucket, List<String> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a manifest of keys must name at least one key");
        }
        return new BackfillScope(bucket, "", new LinkedHashSet<>(keys));
    }

    /**
     * Why {@code item} is outside this scope, or null when it is inside.
     *
     * @return a message naming the item's object (abbreviated, without control characters) and the scope
     */
    public @Nullable String outside(WorkItem item) {
        if (!item.bucket().equals(bucket)) {
            return "work item " + printable(item.describe()) + " is outside this backfill's scope: not bucket " + bucket
                    + "; not read";
        }
        if (!keys.isEmpty()) {
            return keys.contains(item.key())
                    ? null
                    : "work item " + printable(item.describe()) + " is outside this backfill's scope: not one of the "
                            + keys.size() + " key(s) of its manifest; not read";
        }
        if (!item.key().startsWith(prefix)) {
            return "work item " + printable(item.describe()) + " is outside this backfill's scope: not under prefix '"
                    + prefix + "' of bucket " + bucket + "; not read";
        }
        if (hasDotSegment(item.key())) {
            return "work item " + printable(item.describe())
                    + " is outside this backfill's scope: its key has a '.' or " + "'..' segment; not read";
        }
        return null;
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + (keys.isEmpty() ? prefix + "*" : "{" + keys.size() + " key(s)}");
    }

    private static boolean hasDotSegment(String key) {
        for (String segment : key.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /** At most 200 characters, control characters as {@code ?}: the text came from the work topic. */
    private static String printable(String text) {
        String cut = text.length() <= 200 ? text : text.substring(0, 200) + "...";
        StringBuilder out = new StringBuilder(cut.length());
        for (int i = 0; i < cut.length(); i++) {
            char c = cut.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return out.toString();
    }
}
