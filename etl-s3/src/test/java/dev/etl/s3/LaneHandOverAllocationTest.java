package dev.etl.s3;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.etl.record.Payload;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The lane's side of a backfill allocates nothing per row: taking a reader's segment, iterating its rows
 * through the flyweight batch and giving the segment back costs the lane thread only a queue node per
 * segment (thousands of rows). Measured with the JVM's per-thread allocation counter, as
 * {@code ChainAllocationTest} does for chains.
 */
class LaneHandOverAllocationTest {

    /** Rows {@code 0..n-1} of 40 bytes each, as fast as the lane takes them. */
    private static final class Rows extends ReadOnlyFormat {
        Rows() {
            super("rows");
        }

        @Override
        public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out) {
            byte[] row = new byte[40];
            for (long r = skipRows; r < item.end(); r++) {
                row[0] = (byte) r;
                out.row(row, 0, row.length);
            }
        }
    }

    @Test
    void takingRowsFromAReaderAllocatesNothingPerRowOnTheLane() throws Exception {
        ObjectStore none = ReaderFixtures.NO_STORE;
        S3BackfillConfig config = ReaderFixtures.config()
                .segmentBytes(256 * 1024)
                .readAheadSegments(4)
                .build();
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long rows = 2_000_000;
        long measured = 0;
        long allocated = 0;
        SegmentBatch batch = new SegmentBatch();
        for (int round = 0; round < 3; round++) {
            PartitionReader reader = new PartitionReader(
                    "p", none, BackfillFormats.of(List.of(new Rows())), config, Thread.currentThread());
            Thread thread = new Thread(reader, "reader");
            thread.start();
            reader.submit(new PartitionReader.Submitted(0, new WorkItem("rows", "b", "k", 0, rows, 0, ""), 0, null));
            long seen = 0;
            long checksum = 0;
            long before = threads.getCurrentThreadAllocatedBytes();
            boolean ended = false;
            while (!ended) {
                RowSegment s = reader.peek();
                if (s == null) {
                    LockSupport.parkNanos(100_000);
                    continue;
                }
                batch.wrap(0, s, 0, s.count, s.itemEnd, -1);
                while (batch.next()) {
                    Payload value = batch.value();
                    checksum += value.get(0) + batch.offset();
                    seen++;
                }
                batch.clear();
                ended = s.itemEnd;
                reader.consumed(s);
            }
            long after = threads.getCurrentThreadAllocatedBytes();
            reader.cancel();
            thread.join(5_000);
            assertThat(seen).isEqualTo(rows);
            assertThat(checksum).isNotZero();
            if (round > 0) { // the first round warms up the JIT
                measured += seen;
                allocated += after - before;
            }
        }
        double perRow = (double) allocated / measured;
        assertThat(perRow)
                .as("bytes allocated on the lane per row (%d over %d rows)", allocated, measured)
                .isLessThan(0.05);
    }
}
