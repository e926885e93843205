package dev.etl.autoconfigure;

import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Record-level error policies ({@code etl.errors.*}): SKIP, FAIL or DEAD_LETTER. Stage overrides win
 * over error-type overrides. The dead-letter topic ({@code etl.errors.dead-letter.*}) is a group of this
 * class, read by the Kafka connector's auto-configuration, which writes it.
 *
 * <p>Validated when bound (the class is its own {@link Validator}).
 */
@ConfigurationProperties("etl.errors")
public class EtlErrorsProperties implements Validator {

    private final SkipBudget skipBudget = new SkipBudget();

    private final DeadLetter deadLetter = new DeadLetter();

    /**
     * Error policy by stage name (the name given to an operator in the chain, e.g. "to-row").
     */
    private Map<String, ErrorPolicy> stages = new LinkedHashMap<>();

    /**
     * Error policy by error type: deserialization, operator, encode, sink-transient,
     * sink-permanent, source.
     */
    private Map<ErrorClass, ErrorPolicy> types = new LinkedHashMap<>();

    public Map<String, ErrorPolicy> getStages() {
        return this.stages;
    }

    public void setStages(Map<String, ErrorPolicy> stages) {
        this.stages = stages;
    }

    public Map<ErrorClass, ErrorPolicy> getTypes() {
        return this.types;
    }

    public void setTypes(Map<ErrorClass, ErrorPolicy> types) {
        this.types = types;
    }

    public SkipBudget getSkipBudget() {
        return this.skipBudget;
    }

    public DeadLetter getDeadLetter() {
        return this.deadLetter;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlErrorsProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlErrorsProperties properties = (EtlErrorsProperties) target;
        properties.getTypes().forEach((type, policy) -> {
            if (policy == ErrorPolicy.DEAD_LETTER
                    && type != ErrorClass.DESERIALIZATION
                    && type != ErrorClass.OPERATOR
                    && type != ErrorClass.ENCODE) {
                errors.rejectValue(
                        "types",
                        "etl.invalid",
                        "etl.errors.types." + type.label().replace('_', '-') + " cannot be DEAD_LETTER: only record "
                                + "failures (deserialization, operator, encode) can be dead-lettered");
            }
        });
        DeadLetter deadLetter = properties.getDeadLetter();
        EtlPropertiesValidation.positive(
                errors, "deadLetter.sendTimeout", "etl.errors.dead-letter.send-timeout", deadLetter.getSendTimeout());
        String topic = deadLetter.getTopic();
        if (topic != null && topic.isBlank()) {
            errors.rejectValue("deadLetter.topic", "etl.invalid", "etl.errors.dead-letter.topic must not be blank");
        }
    }

    /**
     * Dead-letter topic for records failed under DEAD_LETTER: setting the topic creates the pipeline's
     * dead-letter sink, a Kafka producer on top of {@code spring.kafka.producer.*} (the Kafka connector's
     * {@code KafkaDeadLetterAutoConfiguration}).
     */
    public static class DeadLetter {

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
        private Duration sendTimeout = Duration.ofSeconds(30); // KafkaDeadLetterWriter.DEFAULT_SEND_TIMEOUT

        /**
         * Largest dead-letter record (key + value + headers). A bigger record is truncated to fit,
         * with header "etl.truncated" saying what was cut, instead of failing the pipeline. The
         * producer's "max.request.size" and the topic's "max.message.bytes" lower it further.
         */
        private DataSize maxRecordSize = DataSize.ofMegabytes(1); // KafkaDeadLetterWriter.DEFAULT_MAX_RECORD_BYTES

        /**
         * Whether the pipeline's start checks that the dead-letter topic exists and fails naming
         * it when it does not.
         */
        private boolean checkTopic = true;

        public @Nullable String getTopic() {
            return this.topic;
        }

        public void setTopic(@Nullable String topic) {
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
    }

    /**
     * Skip budget: fails the pipeline when, within one window, a lane skips or dead-letters more
     * than max-ratio of the records it received, per error type, so SKIP cannot silently drop
     * everything (e.g. after a wrong registry path).
     */
    public static class SkipBudget {

        /**
         * Whether a lane that skips or dead-letters more than its budget fails the pipeline.
         */
        private boolean enabled = dev.etl.error.SkipBudget.DEFAULT.enabled();

        /**
         * Share of the records a lane received in the window, in [0, 1), that may be skipped or
         * dead-lettered per error type; more fails the pipeline.
         */
        private double maxRatio = dev.etl.error.SkipBudget.DEFAULT.maxRatio();

        /**
         * Length of the (tumbling) window the ratio is counted over; a window that has not seen min-records
         * records goes on until it has (slow topics are judged too).
         */
        private Duration window = dev.etl.error.SkipBudget.DEFAULT.window();

        /**
         * Records a lane must have received in the window before the budget applies.
         */
        private long minRecords = dev.etl.error.SkipBudget.DEFAULT.minRecords();

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public double getMaxRatio() {
            return this.maxRatio;
        }

        public void setMaxRatio(double maxRatio) {
            this.maxRatio = maxRatio;
        }

        public Duration getWindow() {
            return this.window;
        }

        public void setWindow(Duration window) {
            this.window = window;
        }

        public long getMinRecords() {
            return this.minRecords;
        }

        public void setMinRecords(long minRecords) {
            this.minRecords = minRecords;
        }
    }
}
