package dev.etl.autoconfigure.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.StringUtils;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the Kafka source ({@code etl.source.kafka.*}): what to subscribe to, and consumer
 * settings applied on top of Boot's {@code spring.kafka.*} (connection, SSL and SASL come from there).
 * Validated when bound.
 */
@ConfigurationProperties("etl.source.kafka")
public class EtlKafkaProperties implements Validator {

    /**
     * Topics to subscribe to. Exactly one of "topics" and "pattern" must be set.
     */
    private List<String> topics = new ArrayList<>();

    /**
     * Regular expression of the topics to subscribe to. Exactly one of "topics" and
     * "pattern" must be set.
     */
    private String pattern;

    /**
     * Additional Kafka consumer properties, applied on top of "spring.kafka.consumer.*".
     * "enable.auto.commit" is always false.
     */
    private Map<String, String> properties = new LinkedHashMap<>();

    public List<String> getTopics() {
        return this.topics;
    }

    public void setTopics(List<String> topics) {
        this.topics = topics;
    }

    public @Nullable String getPattern() {
        return this.pattern;
    }

    public void setPattern(@Nullable String pattern) {
        this.pattern = pattern;
    }

    public Map<String, String> getProperties() {
        return this.properties;
    }

    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlKafkaProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlKafkaProperties kafka = (EtlKafkaProperties) target;
        boolean hasTopics = kafka.getTopics() != null && !kafka.getTopics().isEmpty();
        boolean hasPattern = StringUtils.hasText(kafka.getPattern());
        if (hasTopics && hasPattern) {
            errors.rejectValue(
                    "pattern",
                    "etl.invalid",
                    "etl.source.kafka.topics and etl.source.kafka.pattern are exclusive: set one of them");
        }
        if (hasPattern) {
            try {
                Pattern.compile(kafka.getPattern());
            } catch (PatternSyntaxException ex) {
                errors.rejectValue(
                        "pattern",
                        "etl.invalid",
                        "etl.source.kafka.pattern is not a valid regular expression: " + ex.getDescription());
            }
        }
        String autoCommit = kafka.getProperties().get("enable.auto.commit");
        if (autoCommit != null && !"false".equalsIgnoreCase(autoCommit.trim())) {
            errors.rejectValue(
                    "properties",
                    "etl.invalid",
                    "etl.source.kafka.properties[enable.auto.commit] must be false (offsets are committed by the "
                            + "pipeline only after rows are durable), got " + autoCommit);
        }
    }
}
