package dev.etl.kafka;

import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one lane is in contact with its consumer group: not joined within {@code unreachableAfter}
 * of opening, or a last heartbeat ({@code consumer-coordinator-metrics/last-heartbeat-seconds-ago})
 * older than that, sets {@code etl_source_broker_unreachable} to 1 and logs a WARN naming the
 * bootstrap servers, repeated every {@code unreachableAfter} while it lasts; contact again sets the
 * gauge back to 0 with an INFO. Only observes: the client reconnects by itself.
 *
 * <p>Confined to the lane thread (it reads the lane's consumer's metrics).
 */
final class BrokerContact {
    /** The lane's category: what operators configure for the source's messages. */
    private static final Logger log = LoggerFactory.getLogger(KafkaSourceLane.class);

    private final Consumer<byte[], byte[]> consumer;
    private final int laneIndex;
    private final KafkaLaneMetrics metrics;
    private final KafkaSourceConfig config;
    private final long openedNs = System.nanoTime();
    private final long unreachableAfterNs;
    private long nextUnreachableWarnNs;
    private Metric heartbeatAge;

    /** Counts the silence from now: create it when the lane opens. */
    BrokerContact(
            Consumer<byte[], byte[]> consumer, int laneIndex, KafkaLaneMetrics metrics, KafkaSourceConfig config) {
        this.consumer = consumer;
        this.laneIndex = laneIndex;
        this.metrics = metrics;
        this.config = config;
        this.unreachableAfterNs = config.unreachableAfter().toNanos();
        this.nextUnreachableWarnNs = openedNs;
    }

    /** Sets the unreachable gauge and logs (rate-limited) from the join state and heartbeat age. */
    void check(long nowNs, boolean joined) {
        long silentNs;
        if (!joined) {
            silentNs = nowNs - openedNs;
        } else {
            double seconds = heartbeatSecondsAgo();
            silentNs = seconds >= 0 ? (long) (seconds * 1e9) : 0;
        }
        if (silentNs <= unreachableAfterNs) {
            if (metrics.unreachable != 0) {
                metrics.unreachable = 0;
                log.info(
                        "pipeline={} lane={} reached the group {} again (bootstrap.servers={})",
                        config.pipeline(),
                        laneIndex,
                        config.groupId(),
                        config.bootstrapServers());
            }
            return;
        }
        metrics.unreachable = 1;
        if (nowNs - nextUnreachableWarnNs >= 0) {
            nextUnreachableWarnNs = nowNs + unreachableAfterNs;
            log.warn(
                    "pipeline={} lane={} has had no contact with the group {} for {} s ({}): Kafka unreachable at "
                            + "bootstrap.servers={}? The lane keeps retrying",
                    config.pipeline(),
                    laneIndex,
                    config.groupId(),
                    silentNs / 1_000_000_000L,
                    joined ? "no heartbeat" : "never joined, readiness is down",
                    config.bootstrapServers());
        }
    }

    /** The consumer's {@code last-heartbeat-seconds-ago}, or -1 when it has none. Looked up once. */
    private double heartbeatSecondsAgo() {
        if (heartbeatAge == null) {
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                if (e.getKey().name().equals("last-heartbeat-seconds-ago")
                        && e.getKey().group().equals("consumer-coordinator-metrics")) {
                    heartbeatAge = e.getValue();
                    break;
                }
            }
            if (heartbeatAge == null) {
                return -1;
            }
        }
        Object value = heartbeatAge.metricValue();
        return value instanceof Number n ? n.doubleValue() : -1;
    }
}
