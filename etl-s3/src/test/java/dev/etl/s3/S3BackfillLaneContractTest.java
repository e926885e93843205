package dev.etl.s3;

import dev.etl.source.Source;
import dev.etl.test.source.SourceLaneContract;
import java.time.Duration;
import java.util.List;

/**
 * {@link S3BackfillLane} passes the source kit, rebalances included, without a server: the work list is
 * in memory ({@link MemoryWorkList}) and the rows come from a format that makes them up.
 */
class S3BackfillLaneContractTest extends SourceLaneContract {
    /** Rows {@code skip..end-1} of an item, each its number as 8 bytes. */
    private static final class Counting extends ReadOnlyFormat {
        Counting() {
            super("counting");
        }

        @Override
        public void read(ObjectStore store, WorkItem item, long skipRows, RowOutput out) {
            byte[] row = new byte[8];
            for (long r = skipRows; r < item.end(); r++) {
                for (int i = 0; i < 8; i++) {
                    row[i] = (byte) (r >>> (56 - 8 * i));
                }
                out.row(row, 0, row.length);
            }
        }
    }

    private MemoryWorkList workList;

    @Override
    protected Source createSource() {
        workList = new MemoryWorkList();
        for (int partition = 0; partition < 3; partition++) {
            for (int item = 0; item < 4; item++) {
                workList.add(partition, new WorkItem("counting", "b", "p" + partition + "/i" + item, 0, 5_000, 0, ""));
            }
        }
        S3BackfillConfig config = ReaderFixtures.config()
                .maxBatchRows(3)
                .progressInterval(Duration.ofSeconds(60))
                .build();
        return new S3BackfillSource(config, BackfillFormats.of(List.of(new Counting())), workList);
    }

    @Override
    protected void laneOpened(int laneIndex) {
        workList.handle().assign(laneIndex, 0, 1);
    }

    @Override
    protected boolean assign(int partition) {
        workList.handle().assign(0, partition);
        return true;
    }

    @Override
    protected boolean revoke(int partition) {
        workList.handle().revoke(partition);
        return true;
    }

    @Override
    protected boolean lose(int partition) {
        workList.handle().lose(partition);
        return true;
    }
}
