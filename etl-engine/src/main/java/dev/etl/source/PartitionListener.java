package dev.etl.source;

/**
 * Receives a lane's assignment changes. Implemented by the lane; called by the source on the lane's
 * own thread from inside {@link SourceLane#poll}, in the order the changes happen (the model is
 * Kafka's {@code ConsumerRebalanceListener}).
 *
 * <ul>
 *   <li>{@link #onRevoked}: the partitions are leaving this lane in an orderly way. Before
 *       returning, the lane drains their in-flight data through the sinks (bounded by
 *       {@code drain-timeout}) and commits their watermarks synchronously, so the next owner starts
 *       from a correct offset. The source keeps ownership until this returns.</li>
 *   <li>{@link #onLost}: the partitions are already gone (session expired, fenced). Nothing may be
 *       committed for them; the lane drops their state, and their acks become stale.</li>
 *   <li>{@link #onAssigned}: the partitions now belong to the lane; each gets a new epoch. Reading
 *       starts at the source's committed position.</li>
 * </ul>
 *
 * <p>An exception thrown from a callback fails the pipeline.
 */
public interface PartitionListener {
    void onAssigned(int[] partitions);

    void onRevoked(int[] partitions);

    void onLost(int[] partitions);
}
