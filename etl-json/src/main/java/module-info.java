/**
 * The JSON connector: {@code JsonDeserializer} (one document, NDJSON or a top-level array per message;
 * into the user's type or a {@code JsonNode} tree). Its API exposes Jackson 3's own types
 * ({@code ObjectMapper}, {@code JsonNode}, {@code TypeReference}, {@code DeserializationFeature}).
 */
module dev.etl.json {
    requires transitive dev.etl.engine;
    requires transitive tools.jackson.databind;
    requires static transitive org.jspecify; // @NullMarked, @Nullable on the API; annotations only

    exports dev.etl.json;
}
