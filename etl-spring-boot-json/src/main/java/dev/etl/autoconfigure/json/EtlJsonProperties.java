package dev.etl.autoconfigure.json;

import dev.etl.json.JsonFraming;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import tools.jackson.databind.DeserializationFeature;

/** JSON deserialization ({@code etl.json.*}), applied by the {@link JsonDeserializers} bean. */
@ConfigurationProperties("etl.json")
public class EtlJsonProperties {

    /**
     * How JSON values are laid out in one message: "single" (one document), "ndjson" (one document
     * per line) or "array" (a top-level array, one value per element).
     */
    private JsonFraming framing = JsonFraming.SINGLE;

    /**
     * Whether a property the target type does not know fails the document. Unset: the JsonMapper
     * bean's setting (false with Spring Boot's defaults).
     */
    private Boolean failOnUnknownProperties;

    /**
     * Jackson databind features for etl's JSON readers only (the JsonMapper bean is not changed),
     * e.g. "fail-on-null-for-primitives: true". "fail-on-trailing-tokens" is decided by the framing
     * and refused.
     */
    private final Map<DeserializationFeature, Boolean> deserialization = new EnumMap<>(DeserializationFeature.class);

    public JsonFraming getFraming() {
        return this.framing;
    }

    public void setFraming(JsonFraming framing) {
        this.framing = framing;
    }

    public @Nullable Boolean getFailOnUnknownProperties() {
        return this.failOnUnknownProperties;
    }

    public void setFailOnUnknownProperties(@Nullable Boolean failOnUnknownProperties) {
        this.failOnUnknownProperties = failOnUnknownProperties;
    }

    public Map<DeserializationFeature, Boolean> getDeserialization() {
        return this.deserialization;
    }
}
