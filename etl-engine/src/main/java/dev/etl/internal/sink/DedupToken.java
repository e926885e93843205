package dev.etl.internal.sink;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Computes the deduplication token of sealed batches for one (sink, shard): the first 128 bits of
 * SHA-256 over the sink name, the shard index and the batch bytes, as 32 lower-case hex digits.
 *
 * <p>Deterministic across retries, processes and restarts (same bytes, same token), and
 * collision-resistant: a collision would make the server drop a different batch as a duplicate,
 * i.e. lose data, so a cryptographic digest is worth its cost (hashing runs on the io thread, once
 * per sealed batch, not per attempt).
 *
 * <p>Not thread-safe: one instance per shard worker.
 */
final class DedupToken {
    private static final HexFormat HEX = HexFormat.of();
    private static final int TOKEN_BYTES = 16;

    private final MessageDigest sha256;
    private final byte[] prefix;

    DedupToken(String sinkName, int shard) {
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
        byte[] name = sinkName.getBytes(StandardCharsets.UTF_8);
        // name, a zero separator, then the shard big-endian: unambiguous for any name
        this.prefix = new byte[name.length + 5];
        System.arraycopy(name, 0, prefix, 0, name.length);
        prefix[name.length + 1] = (byte) (shard >>> 24);
        prefix[name.length + 2] = (byte) (shard >>> 16);
        prefix[name.length + 3] = (byte) (shard >>> 8);
        prefix[name.length + 4] = (byte) shard;
    }

    /**
     * The token of a deterministic block: the first 128 bits of SHA-256 over sink, shard, the sink's
     * topology (its shard count and how rows are routed to shards), the partition's identity and the
     * offset range. Not the bytes: a server that knows tokens then drops a replayed block even if a
     * non-deterministic operator rebuilt it with other bytes (the rows of that range were written before).
     * The topology and identity are in it because a block of the same range whose rows were chosen
     * differently (another shard count or router: keys moved between shards; another topic of the same
     * name) is not a replay: dropping it would lose the rows it holds (issue 30). Thread-safe (a digest per
     * call; once per block).
     */
    static String ofDeterministicBlock(
            String sinkName, int shard, String topology, String partitionIdentity, long start, long end) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(("block2\0" + sinkName + "\0" + shard + "\0" + topology + "\0" + partitionIdentity + "\0"
                            + start + "\0" + end)
                    .getBytes(StandardCharsets.UTF_8));
            return "b" + HEX.formatHex(digest.digest(), 0, TOKEN_BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** The token of {@code bytes[0, length)}, rows of column layout 0. */
    String of(byte[] bytes, int length) {
        return of(bytes, length, 0);
    }

    /**
     * The token of {@code bytes[0, length)}, rows of column {@code layout}: for layout 0 the same as ever;
     * for another, a zero byte and the layout (big-endian) come first (a sink name starts with no zero
     * byte), so equal bytes of two layouts — other rows, another insert statement — never share a token.
     */
    String of(byte[] bytes, int length, int layout) {
        if (layout != 0) {
            sha256.update((byte) 0);
            sha256.update((byte) (layout >>> 24));
            sha256.update((byte) (layout >>> 16));
            sha256.update((byte) (layout >>> 8));
            sha256.update((byte) layout);
        }
        sha256.update(prefix);
        sha256.update(bytes, 0, length);
        byte[] digest = sha256.digest();
        return HEX.formatHex(digest, 0, TOKEN_BYTES);
    }
}
