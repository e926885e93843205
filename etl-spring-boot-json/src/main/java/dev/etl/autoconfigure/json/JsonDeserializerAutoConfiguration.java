package dev.etl.autoconfigure.json;

import dev.etl.autoconfigure.EtlAutoConfiguration;
import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.json.JsonDeserializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link JsonDeserializers} bean, when etl-json is on the class path: builders of
 * {@link JsonDeserializer}s with {@code etl.json.*} applied, reading with the application's
 * {@link JsonMapper} bean (Spring Boot's, or the application's own) so its modules, naming strategy and
 * features apply; Jackson's defaults without one.
 */
@AutoConfiguration(
        before = EtlAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({JsonDeserializer.class, JsonMapper.class})
@EnableConfigurationProperties(EtlJsonProperties.class)
public final class JsonDeserializerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    JsonDeserializers etlJsonDeserializers(ObjectProvider<JsonMapper> mapper, EtlJsonProperties properties) {
        if (properties.getFraming() == null) {
            throw new InvalidEtlConfigurationException(
                    "etl.json.framing is empty",
                    "Set etl.json.framing to single, ndjson or array, or remove it (default: single).");
        }
        if (properties.getDeserialization().containsKey(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)) {
            throw new InvalidEtlConfigurationException(
                    "etl.json.deserialization.fail-on-trailing-tokens cannot be "
                            + "set: the framing (etl.json.framing) decides what may follow a document, and content after a "
                            + "document is always an error",
                    "Remove etl.json.deserialization.fail-on-trailing-tokens.");
        }
        if (properties.getFailOnUnknownProperties() != null
                && properties.getDeserialization().containsKey(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)) {
            throw new InvalidEtlConfigurationException(
                    "etl.json.fail-on-unknown-properties and "
                            + "etl.json.deserialization.fail-on-unknown-properties are both set",
                    "Keep etl.json.fail-on-unknown-properties and remove the other.");
        }
        JsonMapper jsonMapper = mapper.getIfUnique(JsonMapper::new);
        return new JsonDeserializers(jsonMapper, properties);
    }
}
