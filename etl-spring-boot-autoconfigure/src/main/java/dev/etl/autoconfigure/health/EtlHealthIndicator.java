package dev.etl.autoconfigure.health;

import dev.etl.error.Secrets;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the pipeline as one probe sees it.
 *
 * <ul>
 * <li>{@link Probe#LIVENESS}: {@code UP} unless the pipeline has {@code FAILED} or a lane thread died
 * while running ({@link PipelineRuntime#isLive()}); {@code DOWN} otherwise. Starting and draining
 * are alive: a restart would not help them.</li>
 * <li>{@link Probe#READINESS}: {@code UP} when running, every lane has opened its consumer and every
 * sink is healthy ({@link PipelineRuntime#isReady()}); {@code DOWN} when failed;
 * {@code OUT_OF_SERVICE} otherwise (starting, draining, a sink's replicas unreachable).</li>
 * </ul>
 *
 * <p>Details: state, lanes (configured, alive, paused), records polled, oldest uncommitted batch age,
 * the partitions paused behind a stalled head (by name), in-flight bytes, and per sink and shard the queued chunks; plus the failure message when failed
 * (with secrets masked: {@link Secrets#mask}).
 * Time-bounded by construction: every value is read from atomics or gauges, nothing blocks or does
 * I/O, so the check costs microseconds whatever state the pipeline is in.
 */
public class EtlHealthIndicator extends AbstractHealthIndicator {

    /** Which probe this indicator answers. */
    public enum Probe {

        /** Whether the process should be restarted. */
        LIVENESS,

        /** Whether the pipeline is doing its work. */
        READINESS
    }

    private final PipelineRuntime runtime;

    private final Probe probe;

    /**
     * Creates an indicator.
     * @param runtime the pipeline
     * @param probe the probe answered
     */
    public EtlHealthIndicator(PipelineRuntime runtime, Probe probe) {
        super("ETL pipeline health check failed");
        this.runtime = runtime;
        this.probe = probe;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        PipelineState state = this.runtime.state();
        builder.status(status(state));
        builder.withDetail("pipeline", this.runtime.config().name());
        builder.withDetail("state", state.name());
        Map<String, Object> lanes = new LinkedHashMap<>();
        lanes.put("configured", this.runtime.config().lanes());
        lanes.put("alive", gauge("etl.pipeline.lanes.alive"));
        lanes.put("paused", gauge("etl.backpressure.paused.lanes"));
        builder.withDetail("lanes", lanes);
        builder.withDetail("recordsIn", this.runtime.recordsIn());
        builder.withDetail("watermarkAgeSeconds", gauge("etl.checkpoint.watermark.age"));
        builder.withDetail("heldPartitions", this.runtime.heldPartitions());
        builder.withDetail("inFlightBytes", this.runtime.inFlightBytes());
        builder.withDetail("sinks", sinks());
        Throwable failure = this.runtime.failure();
        if (failure != null) {
            // health details leave the process over HTTP: no URL user info, no password=...
            builder.withDetail("failure", String.valueOf(Secrets.mask(failure.getMessage())));
        }
    }

    private Status status(PipelineState state) {
        if (this.probe == Probe.LIVENESS) {
            return this.runtime.isLive() ? Status.UP : Status.DOWN;
        }
        if (state == PipelineState.FAILED) {
            return Status.DOWN;
        }
        return this.runtime.isReady() ? Status.UP : Status.OUT_OF_SERVICE;
    }

    private Object gauge(String name) {
        Gauge gauge = pipelineMeters(name).gauge();
        return (gauge != null) ? (Object) gauge.value() : "unknown";
    }

    /** Queued chunks per sink and shard, from the sink runtime's gauges. */
    private Map<String, Map<String, Object>> sinks() {
        Map<String, Map<String, Object>> sinks = new TreeMap<>();
        for (Gauge gauge : pipelineMeters("etl.sink.queue.chunks").gauges()) {
            String sink = gauge.getId().getTag("sink");
            String shard = gauge.getId().getTag("shard");
            if (sink != null && shard != null) {
                sinks.computeIfAbsent(sink, (k) -> new TreeMap<>())
                        .put("shard-" + shard + "-queuedChunks", gauge.value());
            }
        }
        return sinks;
    }

    private Search pipelineMeters(String name) {
        MeterRegistry registry = this.runtime.meterRegistry();
        return registry.find(name).tag("pipeline", this.runtime.config().name());
    }
}
