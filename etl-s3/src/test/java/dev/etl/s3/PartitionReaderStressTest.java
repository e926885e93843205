package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The hand-over between a {@link PartitionReader} (its own thread) and the lane (here the test thread)
 * under random timing, row sizes, storage failures and corrupt items, against a reference model: every
 * item's rows arrive in order, exactly once, from its first unskipped row, each item ends with one end
 * segment carrying its row count (and its corruption), and a cancel ends the reader thread.
 */
class PartitionReaderStressTest {

    /** Rows of an item: {@code key} encodes row count, a failing row and a corrupt row. */
    private static final class SeqFormat extends ReadOnlyFormat {
        SeqFormat() {
            super("seq");
        }

        @Override
        public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out)
                throws IOException, CorruptSplitException {
            String[] p = item.key().split(",");
            long rows = Long.parseLong(p[0]);
            long failAt = Long.parseLong(p[1]);
            long corruptAt = Long.parseLong(p[2]);
            int seed = Integer.parseInt(p[3]);
            for (long r = skipRows; r < rows; r++) {
                if (r == corruptAt) {
                    throw new CorruptSplitException("corrupt at row " + r, null);
                }
                if (r == failAt && item.etag().isEmpty() && FAILED.add(item.key())) {
                    throw new IOException("injected failure at row " + r);
                }
                byte[] row = row(seed, r);
                out.row(row, 0, row.length);
                out.bytesRead(row.length);
                if ((r + seed) % 997 == 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                }
            }
        }
    }

    private static final java.util.Set<String> FAILED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static byte[] row(int seed, long r) {
        int pad = (int) ((r * 31 + seed) % 300);
        StringBuilder s = new StringBuilder().append(seed).append(':').append(r).append(':');
        for (int i = 0; i < pad; i++) {
            s.append('x');
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private record Expected(long offset, long skip, long rows, int seed, boolean corrupt) {}

    @Test
    void everyItemsRowsArriveInOrderOnceWithItsEndUnderRandomTiming() throws Exception {
        long seed = Long.getLong("reader.stress.seed", System.nanoTime());
        Random random = new Random(seed);
        for (int round = 0; round < 20; round++) {
            S3BackfillConfig config = config(1 + random.nextInt(3), 256 + random.nextInt(8192));
            PartitionReader reader = new PartitionReader(
                    "p",
                    ReaderFixtures.NO_STORE,
                    BackfillFormats.of(List.of(new SeqFormat())),
                    config,
                    Thread.currentThread());
            Thread thread = new Thread(reader, "reader-" + round);
            thread.start();
            List<Expected> items = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(12); i++) {
                long rows = random.nextInt(4) == 0 ? 0 : random.nextInt(3000);
                long skip = rows > 0 && random.nextInt(4) == 0 ? random.nextInt((int) rows) : 0;
                long failAt = rows > 0 && random.nextBoolean() ? skip + random.nextInt((int) (rows - skip + 1)) : -1;
                long corruptAt =
                        rows > 0 && random.nextInt(5) == 0 ? skip + random.nextInt((int) (rows - skip + 1)) : -1;
                int itemSeed = random.nextInt(1_000_000);
                String key =
                        rows + "," + failAt + "," + corruptAt + "," + itemSeed + "," + round + "," + i + "," + seed;
                WorkItem item = new WorkItem("seq", "b", key, 0, -1, 0, "");
                reader.submit(new PartitionReader.Submitted(100 + i, item, skip, null));
                // A corrupt row at or past the item's last row is never read (seed 4507858217233 drew
                // corruptAt == rows): the item ends whole, not corrupt.
                boolean corrupt = corruptAt >= 0 && corruptAt < rows;
                long delivered = corrupt ? corruptAt : rows;
                items.add(new Expected(100 + i, skip, Math.max(skip, delivered), itemSeed, corrupt));
            }
            for (Expected e : items) {
                long next = e.skip();
                while (true) {
                    RowSegment s = await(reader, seed);
                    assertThat(s.failure).as("seed " + seed).isNull();
                    assertThat(s.itemOffset).as("seed " + seed).isEqualTo(e.offset());
                    assertThat(s.firstRow).as("seed " + seed).isEqualTo(next);
                    for (int i = 0; i < s.count; i++) {
                        byte[] expected = row(e.seed(), next + i);
                        byte[] actual = java.util.Arrays.copyOfRange(s.data, s.starts[i], s.starts[i] + s.lengths[i]);
                        assertThat(actual)
                                .as("seed " + seed + " item " + e + " row " + (next + i))
                                .isEqualTo(expected);
                    }
                    next += s.count;
                    boolean end = s.itemEnd;
                    if (end) {
                        assertThat(s.itemRows).as("seed " + seed).isEqualTo(e.rows());
                        assertThat(s.corrupt != null)
                                .as("seed " + seed + " corrupt " + e)
                                .isEqualTo(e.corrupt());
                    }
                    if (random.nextInt(8) == 0) {
                        Thread.sleep(1); // a slow lane: the reader's segments run out and it waits
                    }
                    reader.consumed(s);
                    if (end) {
                        break;
                    }
                }
                assertThat(next).as("seed " + seed).isEqualTo(e.rows());
            }
            reader.cancel();
            thread.join(5_000);
            assertThat(thread.isAlive())
                    .as("a cancelled reader ends (seed " + seed + ")")
                    .isFalse();
        }
    }

    @Test
    void aCancelWhileTheReaderWaitsForSegmentsEndsItsThread() throws Exception {
        PartitionReader reader = new PartitionReader(
                "p",
                ReaderFixtures.NO_STORE,
                BackfillFormats.of(List.of(new SeqFormat())),
                config(1, 256),
                Thread.currentThread());
        Thread thread = new Thread(reader, "reader-blocked");
        thread.start();
        reader.submit(
                new PartitionReader.Submitted(0, new WorkItem("seq", "b", "100000,-1,-1,7", 0, -1, 0, "x"), 0, null));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (reader.peek() == null && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Thread.sleep(50); // the lane takes nothing: the reader is blocked on its read-ahead
        reader.cancel();
        thread.join(5_000);
        assertThat(thread.isAlive()).isFalse();
    }

    private static RowSegment await(PartitionReader reader, long seed) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        RowSegment s;
        while ((s = reader.peek()) == null) {
            assertThat(System.nanoTime() < deadline)
                    .as("a segment within 10 s (seed " + seed + ")")
                    .isTrue();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return s;
    }

    private static S3BackfillConfig config(int readAhead, int segmentBytes) {
        return ReaderFixtures.config()
                .readAheadSegments(readAhead)
                .segmentBytes(segmentBytes)
                .readAttempts(3)
                .readBackoff(Duration.ofMillis(1), Duration.ofMillis(2))
                .build();
    }
}
