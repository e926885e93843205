package dev.etl.test.memory;

import dev.etl.source.Source;
import dev.etl.test.source.SourceLaneContract;
import java.nio.charset.StandardCharsets;

/** {@link MemorySource} passes the source kit, rebalances included. */
class MemorySourceLaneContractTest extends SourceLaneContract {
    private MemorySourceHandle handle;

    @Override
    protected Source createSource() {
        MemorySource source = MemorySource.create(3);
        handle = source.handle();
        for (int partition = 0; partition < 3; partition++) {
            for (int i = 0; i < 2_000; i++) {
                handle.push(partition, null, ("r" + i).getBytes(StandardCharsets.UTF_8));
            }
        }
        return source;
    }

    @Override
    protected void laneOpened(int laneIndex) {
        handle.assign(laneIndex, 0, 1);
    }

    @Override
    protected boolean assign(int partition) {
        handle.assign(0, partition);
        return true;
    }

    @Override
    protected boolean revoke(int partition) {
        handle.revoke(partition);
        return true;
    }

    @Override
    protected boolean lose(int partition) {
        handle.lose(partition);
        return true;
    }
}
