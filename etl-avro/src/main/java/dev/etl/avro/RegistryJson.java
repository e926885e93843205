package dev.etl.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The JSON of the Confluent Schema Registry API as {@link SchemaRegistryClient} speaks it: the body of
 * a register or lookup request, and the reading of answers into ids, versions and Avro schemas.
 *
 * <p>An answer that lacks what the call needs, or carries a schema that is not Avro or does not
 * parse, is a {@link SchemaRegistryException} with status 200 (the registry answered, but not what
 * was asked), whose message starts with {@code what} (the call, e.g. {@code schema id 7}).
 *
 * <p>Stateless and thread-safe.
 */
final class RegistryJson {
    /** Thread-safe once configured; shared by every client of the process. */
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private RegistryJson() {}

    /** The JSON tree of an HTTP answer body, or null when it is empty or not JSON. */
    static JsonNode parse(String body) {
        if (body == null || body.isEmpty()) {
            return null;
        }
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code {"schema": "<schema JSON>"}}: the body of a register or lookup request. */
    static String schemaBody(Schema schema) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("schema", schema.toString());
        return body.toString();
    }

    /**
     * A registration answer ({@code subject}, {@code id}, {@code version}, {@code schema}); the
     * subject defaults to {@code subject} when the answer does not name it.
     *
     * @throws SchemaRegistryException when the id, the version or an Avro schema is missing
     */
    static RegisteredSchema registered(JsonNode answer, String subject, String what) {
        int id = requiredInt(answer, "id", what);
        int version = requiredInt(answer, "version", what);
        Schema schema = avroSchema(answer, what);
        return new RegisteredSchema(answer.path("subject").asText(subject), id, version, schema);
    }

    /**
     * The Avro schema of an answer's {@code schema} text ({@code schemaType} absent or {@code AVRO}).
     *
     * @throws SchemaRegistryException when the schema is of another type, missing, or unparseable
     */
    static Schema avroSchema(JsonNode answer, String what) {
        String type = answer.path("schemaType").asText("AVRO");
        if (!"AVRO".equals(type)) {
            throw new SchemaRegistryException(what + " is a " + type + " schema, not Avro", 200, -1, null);
        }
        JsonNode text = answer.get("schema");
        if (text == null || !text.isTextual()) {
            throw new SchemaRegistryException(what + ": answer has no schema text", 200, -1, null);
        }
        try {
            return new Schema.Parser().parse(text.asText());
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException(
                    what + ": registry served an unparseable Avro schema: " + e.getMessage(), 200, -1, e);
        }
    }

    /**
     * The integer {@code field} of an answer.
     *
     * @throws SchemaRegistryException when it is missing or not an int
     */
    static int requiredInt(JsonNode answer, String field, String what) {
        JsonNode value = answer.get(field);
        if (value == null || !value.canConvertToInt()) {
            throw new SchemaRegistryException(what + ": answer has no '" + field + "': " + answer, 200, -1, null);
        }
        return value.asInt();
    }
}
