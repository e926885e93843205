package dev.etl.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Pre-registered meters of one Kafka lane (tags {@code pipeline}, {@code lane}); recording allocates
 * nothing. Records in and rebalance events are counted by the engine's lane
 * ({@code etl_source_records_total}, {@code etl_source_rebalance_events_total}); the per-partition lag
 * gauges live in {@link PartitionLagGauges}. Documented in {@code docs/design/kafka.md}.
 */
final class KafkaLaneMetrics {
    /** {@code etl_source_poll_duration_seconds}: one {@code consumer.poll}, rebalance callbacks included. */
    final Timer pollDuration;
    /** {@code etl_source_bytes_total}: serialized key + value bytes received. */
    final Counter bytesIn;
    /** {@code etl_source_tombstones_total}: records with a null value received. */
    final Counter tombstones;
    /** Backs {@code etl_source_broker_unreachable}: 1 while the lane has no contact with its group. */
    volatile int unreachable;

    KafkaLaneMetrics(MeterRegistry registry, String pipeline, int lane) {
        Tags tags = Tags.of("pipeline", pipeline, "lane", Integer.toString(lane));
        pollDuration = Timer.builder("etl.source.poll.duration")
                .description("Time spent in one consumer poll, including rebalance callbacks run inside it")
                .tags(tags)
                .register(registry);
        bytesIn = Counter.builder("etl.source.bytes")
                .description("Serialized key and value bytes received")
                .baseUnit("bytes")
                .tags(tags)
                .register(registry);
        tombstones = Counter.builder("etl.source.tombstones")
                .description("Records with a null value (tombstones) received; handled by the deserializer's policy")
                .tags(tags)
                .register(registry);
        Gauge.builder("etl.source.broker.unreachable", this, m -> m.unreachable)
                .description("1 while the lane has not reached its group coordinator for longer than unreachableAfter")
                .tags(tags)
                .register(registry);
    }
}
