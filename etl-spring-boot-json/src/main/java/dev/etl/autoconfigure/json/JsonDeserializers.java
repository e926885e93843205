package dev.etl.autoconfigure.json;

import dev.etl.json.JsonDeserializer;
import dev.etl.json.JsonFraming;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Builders of {@link JsonDeserializer}s configured from {@code etl.json.*} and the application's
 * {@code JsonMapper} bean: inject it into a {@code ChainFactory} bean, take a builder for the target
 * type once, and {@code build()} one deserializer per lane inside the factory's lambda. A builder's
 * settings can still be changed in code before it builds (e.g. another framing for one chain).
 */
public final class JsonDeserializers {
    private final ObjectMapper mapper;
    private final JsonFraming framing;
    private final Boolean failOnUnknownProperties;
    private final Map<DeserializationFeature, Boolean> features;

    JsonDeserializers(ObjectMapper mapper, EtlJsonProperties properties) {
        this.mapper = mapper;
        this.framing = properties.getFraming();
        this.failOnUnknownProperties = properties.getFailOnUnknownProperties();
        this.features = Map.copyOf(properties.getDeserialization());
    }

    /** A builder for {@code type} (Jackson databind), with the configured framing, mapper and features. */
    public <T> JsonDeserializer.Builder<T> forType(Class<T> type) {
        return configure(JsonDeserializer.forType(type));
    }

    /** A builder for a generic target type, e.g. {@code new TypeReference<Map<String, Long>>() {}}. */
    public <T> JsonDeserializer.Builder<T> forType(TypeReference<T> type) {
        return configure(JsonDeserializer.forType(type));
    }

    /** A builder of {@link JsonNode} trees (schemaless pass-through). */
    public JsonDeserializer.Builder<JsonNode> tree() {
        return configure(JsonDeserializer.tree());
    }

    /** The mapper the builders read with (the application's {@code JsonMapper} bean, or Jackson's defaults). */
    public ObjectMapper mapper() {
        return this.mapper;
    }

    /** The configured framing ({@code etl.json.framing}). */
    public JsonFraming framing() {
        return this.framing;
    }

    private <T> JsonDeserializer.Builder<T> configure(JsonDeserializer.Builder<T> builder) {
        builder.framing(this.framing).mapper(this.mapper);
        this.features.forEach(builder::feature);
        if (this.failOnUnknownProperties != null) {
            builder.failOnUnknownProperties(this.failOnUnknownProperties);
        }
        return builder;
    }
}
