package dev.etl.test.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The HTTP side of a {@link StubSchemaRegistry}: routes each request of the Confluent REST API to the
 * {@link StubSchemaStore} and answers JSON as the registry does (the routes and error codes are
 * listed on {@link StubSchemaRegistry}). Counts every request it receives, answered or not.
 *
 * <p>Called by the server's own thread, one request at a time; the count is read from any thread.
 */
final class StubRegistryApi implements HttpHandler {

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final StubSchemaStore store;

    private final ObjectMapper json = new ObjectMapper();

    private final AtomicInteger requests = new AtomicInteger();

    StubRegistryApi(StubSchemaStore store) {
        this.store = store;
    }

    /** Number of HTTP requests received so far. */
    int requests() {
        return this.requests.get();
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        this.requests.incrementAndGet();
        Answer answer;
        try {
            answer = answer(
                    exchange.getRequestMethod(),
                    segments(exchange.getRequestURI().getRawPath()),
                    exchange.getRequestBody().readAllBytes());
        } catch (InvalidSchemaException ex) {
            answer = error(422, StubSchemaRegistry.INVALID_SCHEMA, "Invalid schema: " + ex.getMessage());
        } catch (RuntimeException ex) {
            answer = error(500, StubSchemaRegistry.INTERNAL_ERROR, "stub schema registry failed: " + ex);
        }
        byte[] body = answer.body().toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", CONTENT_TYPE);
        exchange.sendResponseHeaders(answer.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private Answer answer(String method, List<String> path, byte[] body) {
        int n = path.size();
        if (n == 3 && path.get(0).equals("schemas") && path.get(1).equals("ids")) {
            return "GET".equals(method) ? schemaById(path.get(2)) : methodNotAllowed(method);
        }
        if (n == 1 && path.get(0).equals("subjects")) {
            return "GET".equals(method) ? subjectList() : methodNotAllowed(method);
        }
        if (n == 2 && path.get(0).equals("subjects")) {
            return "POST".equals(method) ? lookup(path.get(1), body) : methodNotAllowed(method);
        }
        if (n == 3 && path.get(0).equals("subjects") && path.get(2).equals("versions")) {
            return switch (method) {
                case "GET" -> versions(path.get(1));
                case "POST" -> register(path.get(1), body);
                default -> methodNotAllowed(method);
            };
        }
        if (n == 4 && path.get(0).equals("subjects") && path.get(2).equals("versions")) {
            return "GET".equals(method) ? version(path.get(1), path.get(3)) : methodNotAllowed(method);
        }
        return error(404, 404, "HTTP 404 Not Found");
    }

    private Answer schemaById(String idText) {
        Integer id = parseInt(idText);
        Schema schema = (id == null) ? null : this.store.schema(id);
        if (schema == null) {
            return error(404, StubSchemaRegistry.SCHEMA_NOT_FOUND, "Schema " + idText + " not found");
        }
        return ok(NODES.objectNode().put("schema", schema.toString()));
    }

    private Answer subjectList() {
        ArrayNode list = NODES.arrayNode();
        this.store.subjects().forEach(list::add);
        return ok(list);
    }

    private Answer versions(String subject) {
        int count = this.store.versionCount(subject);
        if (count < 0) {
            return subjectNotFound(subject);
        }
        ArrayNode list = NODES.arrayNode();
        for (int version = 1; version <= count; version++) {
            list.add(version);
        }
        return ok(list);
    }

    private Answer version(String subject, String versionText) {
        int count = this.store.versionCount(subject);
        if (count < 0) {
            return subjectNotFound(subject);
        }
        Integer version = versionText.equals("latest") ? Integer.valueOf(count) : parseInt(versionText);
        if (version == null || version < 1 || version > count) {
            return error(404, StubSchemaRegistry.VERSION_NOT_FOUND, "Version " + versionText + " not found.");
        }
        // A subject's versions only grow: version n stays what it was when counted.
        return ok(registered(this.store.version(subject, version)));
    }

    private Answer register(String subject, byte[] body) {
        int id = this.store.register(subject, parseSchema(body));
        return ok(NODES.objectNode().put("id", id));
    }

    private Answer lookup(String subject, byte[] body) {
        Schema schema = parseSchema(body);
        if (this.store.versionCount(subject) < 0) {
            return subjectNotFound(subject);
        }
        StubSchemaStore.Version found = this.store.find(subject, schema);
        if (found == null) {
            return error(404, StubSchemaRegistry.SCHEMA_NOT_FOUND, "Schema not found");
        }
        return ok(registered(found));
    }

    private static ObjectNode registered(StubSchemaStore.Version version) {
        return NODES.objectNode()
                .put("subject", version.subject())
                .put("version", version.version())
                .put("id", version.id())
                .put("schema", version.schema().toString());
    }

    /** The schema of a {@code {"schema": "...", "schemaType": "AVRO"}} request body. */
    private Schema parseSchema(byte[] body) {
        JsonNode request;
        try {
            request = this.json.readTree(body);
        } catch (IOException ex) {
            throw new InvalidSchemaException("request body is not JSON");
        }
        if (request == null || !request.path("schema").isTextual()) {
            throw new InvalidSchemaException("request body has no 'schema' string");
        }
        String type = request.path("schemaType").asText("AVRO");
        if (!"AVRO".equals(type)) {
            throw new InvalidSchemaException("this stub serves Avro only, not " + type);
        }
        try {
            return new Schema.Parser().parse(request.get("schema").asText());
        } catch (SchemaParseException ex) {
            throw new InvalidSchemaException(ex.getMessage());
        }
    }

    private static Integer parseInt(String text) {
        try {
            return Integer.valueOf(text);
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    /** Path segments, each percent-decoded on its own, so an encoded {@code /} stays inside a subject. */
    private static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return segments;
    }

    private static Answer subjectNotFound(String subject) {
        return error(404, StubSchemaRegistry.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
    }

    private static Answer methodNotAllowed(String method) {
        return error(405, 405, "HTTP 405 Method Not Allowed: " + method);
    }

    private static Answer ok(JsonNode body) {
        return new Answer(200, body);
    }

    private static Answer error(int status, int code, String message) {
        return new Answer(status, NODES.objectNode().put("error_code", code).put("message", message));
    }

    private record Answer(int status, JsonNode body) {}

    /** A request body that is not an Avro schema; answered 422 with {@link StubSchemaRegistry#INVALID_SCHEMA}. */
    private static final class InvalidSchemaException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        InvalidSchemaException(String message) {
            super(message, null, false, false);
        }
    }
}
