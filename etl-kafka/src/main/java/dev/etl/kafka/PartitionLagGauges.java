package dev.etl.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The {@code etl_source_lag_records{pipeline,topic,partition}} gauges of one source. A gauge exists
 * while some lane of this process owns the partition: {@link #claim} registers it (or takes it over),
 * {@link #release} removes it only if the releasing lane is still the owner — a lane that learns late
 * that it lost a partition cannot remove the gauge of the lane that owns it now.
 *
 * <p>The owning lane writes samples into the partition's {@link Cell} (a volatile double); the gauge
 * reads it from the scrape thread. The consumer itself is never touched off its lane thread.
 *
 * <p>Thread-safe (claims and releases are rare and synchronized).
 */
final class PartitionLagGauges {
    /** One partition's lag sample; {@code NaN} until the owning lane has one. */
    static final class Cell {
        volatile double lag = Double.NaN;
        private int owner = -1;
        private Gauge gauge;
    }

    private final MeterRegistry registry;
    private final String pipeline;
    private final Map<Integer, Cell> cells = new HashMap<>();

    PartitionLagGauges(MeterRegistry registry, String pipeline) {
        this.registry = registry;
        this.pipeline = pipeline;
    }

    synchronized Cell claim(int id, TopicPartition tp, int lane) {
        Cell cell = cells.computeIfAbsent(id, k -> new Cell());
        cell.owner = lane;
        cell.lag = Double.NaN;
        if (cell.gauge == null) {
            cell.gauge = Gauge.builder("etl.source.lag", cell, c -> c.lag)
                    .description("Records between the lane's position and the partition's end offset (high "
                            + "watermark, or last stable offset under read_committed), sampled by the owning lane")
                    .baseUnit("records")
                    .strongReference(true)
                    .tag("pipeline", pipeline)
                    .tag("topic", tp.topic())
                    .tag("partition", Integer.toString(tp.partition()))
                    .register(registry);
        }
        return cell;
    }

    synchronized void release(Cell cell, int lane) {
        if (cell.owner != lane) {
            return;
        }
        cell.owner = -1;
        cell.lag = Double.NaN;
        if (cell.gauge != null) {
            registry.remove(cell.gauge);
            cell.gauge = null;
        }
    }

    synchronized void close() {
        for (Cell cell : cells.values()) {
            if (cell.gauge != null) {
                registry.remove(cell.gauge);
                cell.gauge = null;
            }
            cell.owner = -1;
        }
    }
}
