package dev.etl.datagen;

import dev.etl.source.Source;
import dev.etl.test.source.SourceLaneContract;

/** {@link DatagenLane} passes the source kit (it has no rebalances: those tests are skipped). */
class DatagenLaneContractTest extends SourceLaneContract {
    @Override
    protected Source createSource() {
        return DatagenSource.builder(DatagenSourceTest.ID_AND_RANDOM)
                .partitions(3)
                .maxPollRecords(3)
                .build();
    }
}
