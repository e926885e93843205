package dev.etl.source;

/**
 * The control plane of a source: creates one {@link SourceLane} per lane thread. Kafka's creates a
 * consumer per lane, all in one consumer group, so the broker spreads partitions over lanes (and
 * over processes).
 */
public interface Source extends AutoCloseable {
    /**
     * Opens the data plane of lane {@code laneIndex}. Called on that lane's own thread before its
     * first poll; the returned lane is used only by that thread (except {@link SourceLane#wakeup()}).
     *
     * @param listener receives this lane's assignment changes, from inside {@link SourceLane#poll}
     */
    SourceLane openLane(int laneIndex, PartitionListener listener);

    /** A short description for logs, e.g. {@code kafka[orders, payments]}. */
    String describe();

    @Override
    default void close() {}
}
