package dev.etl.autoconfigure.kafka;

import dev.etl.kafka.KafkaDeadLetterWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Dead-letter topic for records failed under DEAD_LETTER ({@code etl.errors.dead-letter.*}): setting
 * the topic creates the pipeline's dead-letter sink, a Kafka producer on top of
 * {@code spring.kafka.producer.*}. Validated when bound.
 */
@ConfigurationProperties("etl.errors.dead-letter")
public class EtlDeadLetterProperties implements Validator {

    /**
     * Kafka topic that records failed under the DEAD_LETTER policy are written to (original
     * key and value bytes plus "etl.*" context headers). Required when any policy is
     * DEAD_LETTER.
     */
    private String topic;

    /**
     * Additional Kafka producer properties for the dead-letter topic, applied on top of
     * "spring.kafka.producer.*". "acks" is always "all" and "enable.idempotence" always true.
     */
    private Map<String, String> properties = new LinkedHashMap<>();

    /**
     * Longest a dead-letter write waits for the broker to acknowledge its records before it is
     * retried.
     */
    private Duration sendTimeout = KafkaDeadLetterWriter.DEFAULT_SEND_TIMEOUT;

    /**
     * Largest dead-letter record (key + value + headers). A bigger record is truncated to fit,
     * with header "etl.truncated" saying what was cut, instead of failing the pipeline. The
     * producer's "max.request.size" and the topic's "max.message.bytes" lower it further.
     */
    private DataSize maxRecordSize = DataSize.ofBytes(KafkaDeadLetterWriter.DEFAULT_MAX_RECORD_BYTES);

    /**
     * Whether the pipeline's start checks that the dead-letter topic exists and fails naming
     * it when it does not.
     */
    private boolean checkTopic = true;

    public DataSize getMaxRecordSize() {
        return this.maxRecordSize;
    }

    public void setMaxRecordSize(DataSize maxRecordSize) {
        this.maxRecordSize = maxRecordSize;
    }

    public boolean isCheckTopic() {
        return this.checkTopic;
    }

    public void setCheckTopic(boolean checkTopic) {
        this.checkTopic = checkTopic;
    }

    public String getTopic() {
        return this.topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public Map<String, String> getProperties() {
        return this.properties;
    }

    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    public Duration getSendTimeout() {
        return this.sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlDeadLetterProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlDeadLetterProperties deadLetter = (EtlDeadLetterProperties) target;
        Duration sendTimeout = deadLetter.getSendTimeout();
        if (sendTimeout == null || sendTimeout.isNegative() || sendTimeout.isZero()) {
            errors.rejectValue(
                    "sendTimeout",
                    "etl.invalid",
                    "etl.errors.dead-letter.send-timeout must be > 0, got " + sendTimeout);
        }
        String topic = deadLetter.getTopic();
        if (topic != null && topic.isBlank()) {
            errors.rejectValue("topic", "etl.invalid", "etl.errors.dead-letter.topic must not be blank");
        }
    }
}
