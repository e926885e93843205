package dev.etl.internal.sink;

import java.util.function.IntFunction;

/**
 * How a sink names source partitions in its messages ({@code orders-3}): the pipeline's source, once a lane
 * has opened it ({@link #use}); {@code partition <id>} before. Thread-safe: set once by a lane thread, read
 * by io threads on failure paths.
 */
public final class PartitionNames {
    private volatile IntFunction<String> names;

    /** Names partitions with {@code names} from now on (the first source lane to open sets it). */
    public void use(IntFunction<String> names) {
        if (this.names == null) {
            this.names = names;
        }
    }

    /** The name of {@code partition}. */
    String name(int partition) {
        IntFunction<String> n = names;
        try {
            return n == null ? "partition " + partition : n.apply(partition);
        } catch (RuntimeException e) {
            return "partition " + partition;
        }
    }
}
