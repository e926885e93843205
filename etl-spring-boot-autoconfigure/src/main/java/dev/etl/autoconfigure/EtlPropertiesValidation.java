package dev.etl.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.springframework.util.StringUtils;
import org.springframework.validation.Errors;

/**
 * The checks behind {@link EtlProperties#validate}. Each rejection names the property in its
 * {@code etl.*} form and the allowed values, so the startup failure reads as an instruction.
 */
final class EtlPropertiesValidation {

    private static final Pattern SETTING_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final EtlProperties properties;

    private final Errors errors;

    EtlPropertiesValidation(EtlProperties properties, Errors errors) {
        this.properties = properties;
        this.errors = errors;
    }

    void validate() {
        pipeline();
        checkpoint();
        backpressure();
        kafka();
        clickHouse();
        errors();
    }

    private void errors() {
        EtlProperties.Errors errors = this.properties.getErrors();
        errors.getTypes().forEach((type, policy) -> {
            if (policy == dev.etl.error.ErrorPolicy.DEAD_LETTER && type != dev.etl.error.ErrorClass.DESERIALIZATION
                    && type != dev.etl.error.ErrorClass.OPERATOR && type != dev.etl.error.ErrorClass.ENCODE) {
                reject("errors.types", "etl.errors.types." + type.label().replace('_', '-') + " cannot be "
                        + "DEAD_LETTER: only record failures (deserialization, operator, encode) can be dead-lettered");
            }
        });
        positive("errors.deadLetter.sendTimeout", "etl.errors.dead-letter.send-timeout",
                errors.getDeadLetter().getSendTimeout());
        String topic = errors.getDeadLetter().getTopic();
        if (topic != null && topic.isBlank()) {
            reject("errors.deadLetter.topic", "etl.errors.dead-letter.topic must not be blank");
        }
    }

    private void pipeline() {
        EtlProperties.Pipeline pipeline = this.properties.getPipeline();
        if (pipeline.getName() != null && pipeline.getName().isBlank()) {
            reject("pipeline.name", "etl.pipeline.name must not be blank (leave it unset to use "
                    + "spring.application.name or \"etl\")");
        }
        atLeastOne("pipeline.threads", "etl.pipeline.threads", pipeline.getThreads());
        if (pipeline.getIoThreads() < 0) {
            reject("pipeline.ioThreads", "etl.pipeline.io-threads must be >= 0 (0 = one per shard), got "
                    + pipeline.getIoThreads());
        }
        positive("pipeline.pollTimeout", "etl.pipeline.poll-timeout", pipeline.getPollTimeout());
    }

    private void checkpoint() {
        EtlProperties.Checkpoint checkpoint = this.properties.getCheckpoint();
        positive("checkpoint.interval", "etl.checkpoint.interval", checkpoint.getInterval());
        positive("checkpoint.drainTimeout", "etl.checkpoint.drain-timeout", checkpoint.getDrainTimeout());
        Duration stalled = checkpoint.getStalledFailAfter();
        if (stalled == null || stalled.isNegative()) {
            reject("checkpoint.stalledFailAfter",
                    "etl.checkpoint.stalled-fail-after must be >= 0 (0 disables the check), got " + stalled);
        }
    }

    private void backpressure() {
        EtlProperties.Backpressure backpressure = this.properties.getBackpressure();
        if (backpressure.getMaxInFlightBytes() == null || backpressure.getMaxInFlightBytes().toBytes() <= 0) {
            reject("backpressure.maxInFlightBytes", "etl.backpressure.max-in-flight-bytes must be > 0, got "
                    + backpressure.getMaxInFlightBytes());
        }
        double pauseAbove = backpressure.getPauseAbove();
        if (!(pauseAbove > 0 && pauseAbove <= 1)) {
            reject("backpressure.pauseAbove",
                    "etl.backpressure.pause-above must be in (0, 1] (a fraction of max-in-flight-bytes), got "
                            + pauseAbove);
        }
        double resumeBelow = backpressure.getResumeBelow();
        if (resumeBelow < 0) {
            reject("backpressure.resumeBelow", "etl.backpressure.resume-below must be >= 0, got " + resumeBelow);
        }
        else if (resumeBelow >= pauseAbove) {
            reject("backpressure.resumeBelow", "etl.backpressure.resume-below must be < pause-above ("
                    + pauseAbove + "), got " + resumeBelow);
        }
        Duration minPause = backpressure.getMinPause();
        if (minPause == null || minPause.isNegative()) {
            reject("backpressure.minPause", "etl.backpressure.min-pause must be >= 0, got " + minPause);
        }
    }

    private void kafka() {
        EtlProperties.Source.Kafka kafka = this.properties.getSource().getKafka();
        boolean hasTopics = kafka.getTopics() != null && !kafka.getTopics().isEmpty();
        boolean hasPattern = StringUtils.hasText(kafka.getPattern());
        if (hasTopics && hasPattern) {
            reject("source.kafka.pattern",
                    "etl.source.kafka.topics and etl.source.kafka.pattern are exclusive: set one of them");
        }
        if (hasPattern) {
            try {
                Pattern.compile(kafka.getPattern());
            }
            catch (PatternSyntaxException ex) {
                reject("source.kafka.pattern",
                        "etl.source.kafka.pattern is not a valid regular expression: " + ex.getDescription());
            }
        }
        String autoCommit = kafka.getProperties().get("enable.auto.commit");
        if (autoCommit != null && !"false".equalsIgnoreCase(autoCommit.trim())) {
            reject("source.kafka.properties",
                    "etl.source.kafka.properties[enable.auto.commit] must be false (offsets are committed by the "
                            + "pipeline only after rows are durable), got " + autoCommit);
        }
    }

    private void clickHouse() {
        EtlProperties.ClickHouse clickHouse = this.properties.getSink().getClickhouse();
        if (!StringUtils.hasText(clickHouse.getName())) {
            reject("sink.clickhouse.name", "etl.sink.clickhouse.name must not be blank");
        }
        List<EtlProperties.ClickHouse.Shard> shards = clickHouse.getShards();
        for (int i = 0; i < shards.size(); i++) {
            if (shards.get(i).getReplicas().isEmpty()) {
                reject("sink.clickhouse.shards", "etl.sink.clickhouse.shards[" + i + "].replicas must list at "
                        + "least one replica URL (http://host:port)");
            }
        }
        int capacity = clickHouse.getQueueCapacity();
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            reject("sink.clickhouse.queueCapacity",
                    "etl.sink.clickhouse.queue-capacity must be a power of two >= 2 (e.g. 64), got " + capacity);
        }
        for (Map.Entry<String, String> setting : clickHouse.getSettings().entrySet()) {
            String key = setting.getKey();
            if (EtlProperties.OWNED_CLICKHOUSE_SETTINGS.contains(key)) {
                reject("sink.clickhouse.settings", "etl.sink.clickhouse.settings." + key
                        + " is set by the sink itself and cannot be overridden (owned settings: "
                        + EtlProperties.OWNED_CLICKHOUSE_SETTINGS + ")");
            }
            else if (!SETTING_NAME.matcher(key).matches()) {
                reject("sink.clickhouse.settings", "etl.sink.clickhouse.settings." + key
                        + " is not a ClickHouse setting name ([A-Za-z_][A-Za-z0-9_]*)");
            }
        }
        EtlProperties.ClickHouse.Batch batch = clickHouse.getBatch();
        atLeastOne("sink.clickhouse.batch.maxRows", "etl.sink.clickhouse.batch.max-rows", batch.getMaxRows());
        atLeastOne("sink.clickhouse.batch.maxInFlightPerShard",
                "etl.sink.clickhouse.batch.max-in-flight-per-shard", batch.getMaxInFlightPerShard());
        EtlProperties.ClickHouse.Retry retry = clickHouse.getRetry();
        if (retry.getMaxAttempts() < 0) {
            reject("sink.clickhouse.retry.maxAttempts",
                    "etl.sink.clickhouse.retry.max-attempts must be >= 0 (0 = until the drain deadline), got "
                            + retry.getMaxAttempts());
        }
        if (retry.getMultiplier() < 1) {
            reject("sink.clickhouse.retry.multiplier",
                    "etl.sink.clickhouse.retry.multiplier must be >= 1, got " + retry.getMultiplier());
        }
        if (retry.getJitter() < 0 || retry.getJitter() > 1) {
            reject("sink.clickhouse.retry.jitter",
                    "etl.sink.clickhouse.retry.jitter must be in [0, 1], got " + retry.getJitter());
        }
        if (retry.getInitialBackoff() != null && retry.getMaxBackoff() != null
                && retry.getMaxBackoff().compareTo(retry.getInitialBackoff()) < 0) {
            reject("sink.clickhouse.retry.maxBackoff", "etl.sink.clickhouse.retry.max-backoff must be >= "
                    + "initial-backoff (" + retry.getInitialBackoff() + "), got " + retry.getMaxBackoff());
        }
        atLeastOne("sink.clickhouse.breaker.threshold", "etl.sink.clickhouse.breaker.threshold",
                clickHouse.getBreaker().getThreshold());
    }

    private void atLeastOne(String field, String key, int value) {
        if (value < 1) {
            reject(field, key + " must be >= 1, got " + value);
        }
    }

    private void positive(String field, String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            reject(field, key + " must be > 0, got " + value);
        }
    }

    private void reject(String field, String message) {
        this.errors.rejectValue(field, "etl.invalid", message);
    }

}
