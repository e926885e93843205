package dev.etl.simulation;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.SealedBatch;
import dev.etl.sink.ShardWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A simulated ClickHouse cluster: shards, each a replicated table (what one replica stores, the others
 * have: the simulation does not split them) with the insert deduplication of a Replicated*MergeTree: the
 * last {@code window} blocks' hashes are remembered per shard, and an insert whose hash is among them is
 * acknowledged and dropped. The hash is the block's content ({@link Dedup#CONTENT}: ClickHouse 18.16, which
 * has no tokens) or the insert's {@code insert_deduplication_token} ({@link Dedup#TOKEN}: every current
 * server). Inserts go through a {@link ShardWriter} per process incarnation that waits a random latency
 * (through the scheduler: the process may die meanwhile, and then nothing was inserted) and fails at
 * random, before the insert or after it (the response lost: the retry is deduplicated or not, by the
 * same rules).
 */
final class SimClickHouse {
    enum Dedup {
        CONTENT,
        TOKEN
    }

    static final int MAX_SHARDS = 3;

    private final SimScheduler scheduler;
    private final Random random;
    final Dedup dedup;
    final int window;
    private final Shard[] shards = new Shard[MAX_SHARDS];
    /** Probability that an attempt fails before it inserts, and after (the response lost). */
    double failBefore;

    double failAfter;
    /** Longest simulated latency of an insert, in milliseconds. */
    int maxLatencyMs = 20;

    SimClickHouse(SimScheduler scheduler, Random random, Dedup dedup, int window) {
        this.scheduler = scheduler;
        this.random = random;
        this.dedup = dedup;
        this.window = window;
        for (int i = 0; i < MAX_SHARDS; i++) {
            shards[i] = new Shard();
        }
    }

    /** One shard's table: every row inserted (duplicates included) and the deduplication window. */
    static final class Shard {
        final List<String> rows = new ArrayList<>();
        final ArrayDeque<String> recent = new ArrayDeque<>();
        final Set<String> recentSet = new HashSet<>();
        long inserts;
        long deduplicated;
    }

    /** How often each row is stored, over all shards. */
    Map<String, Integer> rowCounts() {
        Map<String, Integer> counts = new HashMap<>();
        for (Shard shard : shards) {
            for (String row : shard.rows) {
                counts.merge(row, 1, Integer::sum);
            }
        }
        return counts;
    }

    long inserts() {
        long n = 0;
        for (Shard s : shards) {
            n += s.inserts;
        }
        return n;
    }

    long deduplicated() {
        long n = 0;
        for (Shard s : shards) {
            n += s.deduplicated;
        }
        return n;
    }

    /** Inserts a block into {@code shard}, unless its hash is in the window. Returns whether it was stored. */
    private boolean insert(int shard, String token, byte[] bytes, int length) {
        Shard s = shards[shard];
        String hash = dedup == Dedup.TOKEN ? "t:" + token : "c:" + sha256(bytes, length);
        if (s.recentSet.contains(hash)) {
            s.deduplicated++;
            return false;
        }
        s.recent.addLast(hash);
        s.recentSet.add(hash);
        while (s.recent.size() > window) {
            s.recentSet.remove(s.recent.pollFirst());
        }
        s.rows.addAll(decodeStrings(bytes, length));
        s.inserts++;
        return true;
    }

    /** The writer of shard {@code shard} for the process whose source is {@code process}. */
    ShardWriter writer(int shard, SimKafka.SimSource process) {
        return new ShardWriter() {
            @Override
            public void write(SealedBatch batch) throws SinkWriteException {
                process.alive();
                scheduler.parkNanos(random.nextInt(maxLatencyMs + 1) * 1_000_000L);
                process.alive(); // died while the insert was on its way: nothing stored
                if (Thread.interrupted()) {
                    throw SinkWriteException.transientFailure("simulated insert interrupted", null);
                }
                if (random.nextDouble() < failBefore) {
                    throw SinkWriteException.transientFailure("simulated replica failure before the insert", null);
                }
                List<String> rows = decodeStrings(batch.bytes(), batch.byteCount());
                int[] poison = poisonRows(rows);
                if (poison.length > 0) {
                    // The server refuses the insert for its content (a constraint): the writer isolates the
                    // refused rows by bisection, writes the rest in pieces whose tokens derive from the
                    // batch's, and reports the refused ones, as the ClickHouse writer does.
                    insertAround(shard, batch.dedupToken(), rows, 0, rows.size());
                    throw SinkWriteException.rejectedRows("simulated constraint violation", poison, null);
                }
                insert(shard, batch.dedupToken(), batch.bytes(), batch.byteCount());
                if (random.nextDouble() < failAfter) {
                    throw SinkWriteException.transientFailure("simulated lost response after the insert", null);
                }
            }
        };
    }

    /** Rows the server refuses: a value marked as poison (a record a constraint rejects). */
    static boolean isPoison(String row) {
        return row.endsWith("!");
    }

    private static int[] poisonRows(List<String> rows) {
        int n = 0;
        for (String row : rows) {
            if (isPoison(row)) {
                n++;
            }
        }
        int[] poison = new int[n];
        int i = 0;
        for (int r = 0; r < rows.size(); r++) {
            if (isPoison(rows.get(r))) {
                poison[i++] = r;
            }
        }
        return poison;
    }

    /** Inserts rows {@code [from, to)} as a piece, or as its halves when it holds a refused row. */
    private void insertAround(int shard, String token, List<String> rows, int from, int to) {
        boolean poisoned = false;
        for (int r = from; r < to; r++) {
            poisoned |= isPoison(rows.get(r));
        }
        if (!poisoned) {
            byte[] bytes = encodeStrings(rows.subList(from, to));
            insert(shard, token + "~" + from + "-" + to, bytes, bytes.length);
        } else if (to - from > 1) {
            int mid = (from + to) >>> 1;
            insertAround(shard, token, rows, from, mid);
            insertAround(shard, token, rows, mid, to);
        }
    }

    static byte[] encodeStrings(List<String> rows) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (String row : rows) {
            byte[] b = row.getBytes(StandardCharsets.UTF_8);
            long n = b.length;
            while (n >= 0x80) {
                out.write((int) (n & 0x7F) | 0x80);
                n >>>= 7;
            }
            out.write((int) n);
            out.write(b, 0, b.length);
        }
        return out.toByteArray();
    }

    /** RowBinary strings: a LEB128 length, then UTF-8 bytes; one per row. */
    static List<String> decodeStrings(byte[] bytes, int length) {
        List<String> rows = new ArrayList<>();
        int i = 0;
        while (i < length) {
            long n = 0;
            int shift = 0;
            while (true) {
                byte b = bytes[i++];
                n |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                shift += 7;
            }
            rows.add(new String(bytes, i, (int) n, StandardCharsets.UTF_8));
            i += (int) n;
        }
        return rows;
    }

    private static String sha256(byte[] bytes, int length) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            digest.update(bytes, 0, length);
            return java.util.HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
