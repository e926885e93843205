package dev.etl.test.avro;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * An in-process stand-in for a Confluent-compatible schema registry, serving Avro schemas over HTTP
 * on an ephemeral port of {@code 127.0.0.1}: enough for the production
 * {@link dev.etl.avro.SchemaRegistryClient SchemaRegistryClient} and
 * {@link dev.etl.avro.AvroDeserializer AvroDeserializer} to run unchanged in a test.
 *
 * <p><b>What it serves</b> (everything the engine's client calls):
 * <ul>
 * <li>{@code GET /schemas/ids/{id}}: the schema with that id;</li>
 * <li>{@code POST /subjects/{subject}/versions}: registers a schema, answers its id;</li>
 * <li>{@code POST /subjects/{subject}}: looks a schema up under a subject;</li>
 * <li>{@code GET /subjects/{subject}/versions} and {@code GET /subjects/{subject}/versions/{version}}
 * ({@code latest} included);</li>
 * <li>{@code GET /subjects}.</li>
 * </ul>
 * Errors are answered as the Confluent registry does, with a JSON body of {@code error_code} and
 * {@code message}: 404 with {@code 40401} (unknown subject), {@code 40402} (unknown version) or
 * {@code 40403} (unknown schema id, or schema not under the subject); 422 with {@code 42201} for a
 * body that is not an Avro schema; 404/405 with the HTTP status as code for other paths and methods;
 * 500 with {@code 50001} if the stub itself fails.
 *
 * <p><b>Ids.</b> As in the real registry, ids are global and content-addressed: registering a schema
 * that already has an id (under any subject) answers that id, and a subject gets a new version only
 * for a schema it does not have yet. {@link #put} binds a schema to an id of the test's choosing (the
 * id written into test records); {@link #register} picks ids above every id used so far.
 *
 * <p><b>Threads.</b> Thread-safe: a test may {@link #put} or {@link #register} while the server answers
 * requests, which are handled one at a time on the server's own thread.
 *
 * <p><b>Lifecycle.</b> {@link #start()} binds the port and starts serving; {@link #close()} stops it.
 * Under {@code @EtlPipelineTest} the slice provides a started instance as a bean and closes it with
 * the context.
 *
 * <pre>{@code
 * try (StubSchemaRegistry registry = StubSchemaRegistry.start()) {
 *     int id = registry.register("orders-value", Order.getClassSchema());
 *     SchemaRegistryClient client = SchemaRegistryClient.builder(registry.url()).build();
 *     AvroDeserializer<Order> avro = AvroDeserializer.specific(Order.class).confluent(client).build();
 *     ...
 * }
 * }</pre>
 */
public final class StubSchemaRegistry implements AutoCloseable {

    /** Error code of a subject the registry does not know. */
    public static final int SUBJECT_NOT_FOUND = 40401;

    /** Error code of a version the subject does not have. */
    public static final int VERSION_NOT_FOUND = 40402;

    /** Error code of an unknown schema id, or of a schema not registered under the subject. */
    public static final int SCHEMA_NOT_FOUND = 40403;

    /** Error code of a request body that is not a valid Avro schema. */
    public static final int INVALID_SCHEMA = 42201;

    /** Error code of a failure of the stub itself. */
    public static final int INTERNAL_ERROR = 50001;

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final HttpServer server;

    private final ObjectMapper json = new ObjectMapper();

    private final AtomicInteger requests = new AtomicInteger();

    private final AtomicBoolean closed = new AtomicBoolean();

    /** Guards the four fields below: tests write them while the server thread reads them. */
    private final Object lock = new Object();

    private final Map<Integer, Schema> schemasById = new HashMap<>();

    private final Map<Schema, Integer> idsBySchema = new HashMap<>();

    /** Per subject, the ids of its versions: version n is element n - 1. */
    private final Map<String, List<Integer>> subjects = new LinkedHashMap<>();

    private int nextId = 1;

    private StubSchemaRegistry(HttpServer server) {
        this.server = server;
    }

    /**
     * Starts a registry with no schemas on an ephemeral port of {@code 127.0.0.1}.
     * @return the started registry; close it to stop serving
     * @throws UncheckedIOException if no port can be bound
     */
    public static StubSchemaRegistry start() {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot bind the stub schema registry to a port of 127.0.0.1", ex);
        }
        StubSchemaRegistry registry = new StubSchemaRegistry(server);
        server.createContext("/", registry::handle);
        server.start();
        return registry;
    }

    /**
     * Base URL of the registry API, for {@code SchemaRegistryClient.builder(url)} or
     * {@code etl.avro.registry.url}.
     * @return {@code http://127.0.0.1:<port>}, without a trailing slash
     */
    public String url() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    /**
     * Binds {@code schema} to {@code id}, under no subject: {@code GET /schemas/ids/{id}} serves it.
     * Idempotent for the same schema. Later {@link #register} calls pick ids above {@code id}, and
     * registering this schema answers this id (the first one, if it was put under several).
     * @param id the schema id, as written into the test's records
     * @param schema the schema
     * @return {@code id}
     * @throws IllegalArgumentException if {@code id} is negative or {@link Integer#MAX_VALUE}, or already
     * bound to a different schema (ids never change meaning, and clients cache them forever)
     */
    public int put(int id, Schema schema) {
        Objects.requireNonNull(schema, "schema");
        if (id < 0 || id == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("schema id must be between 0 and " + (Integer.MAX_VALUE - 1) + ": " + id);
        }
        synchronized (this.lock) {
            Schema bound = this.schemasById.get(id);
            if (bound != null && !bound.equals(schema)) {
                throw new IllegalArgumentException("schema id " + id + " is already bound to " + bound.getFullName()
                        + " (" + bound + "), cannot rebind it to " + schema);
            }
            this.schemasById.put(id, schema);
            this.idsBySchema.putIfAbsent(schema, id);
            this.nextId = Math.max(this.nextId, id + 1);
        }
        return id;
    }

    /**
     * Registers {@code schema} under {@code subject}, as {@code POST /subjects/{subject}/versions} does:
     * the schema keeps the id it has anywhere in this registry, or gets the next free one; the subject
     * gets a new version unless it already has this schema.
     * @param subject the subject, e.g. {@code orders-value}
     * @param schema the schema
     * @return the schema's id
     */
    public int register(String subject, Schema schema) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        if (subject.isEmpty()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
        synchronized (this.lock) {
            Integer id = this.idsBySchema.get(schema);
            if (id == null) {
                id = this.nextId++;
                this.schemasById.put(id, schema);
                this.idsBySchema.put(schema, id);
            }
            List<Integer> versions = this.subjects.computeIfAbsent(subject, (s) -> new ArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            return id;
        }
    }

    /**
     * Number of HTTP requests received since the start, answered or not: a client's cache hits
     * send none, so this shows how often it really asked.
     * @return the request count
     */
    public int requests() {
        return this.requests.get();
    }

    /** Stops serving and frees the port; idempotent. Requests in progress are cut off. */
    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.server.stop(0);
        }
    }

    @Override
    public String toString() {
        return "StubSchemaRegistry[" + url() + "]";
    }

    private void handle(HttpExchange exchange) throws IOException {
        this.requests.incrementAndGet();
        Answer answer;
        try {
            answer = answer(exchange.getRequestMethod(), segments(exchange.getRequestURI().getRawPath()),
                    exchange.getRequestBody().readAllBytes());
        }
        catch (InvalidSchemaException ex) {
            answer = error(422, INVALID_SCHEMA, "Invalid schema: " + ex.getMessage());
        }
        catch (RuntimeException ex) {
            answer = error(500, INTERNAL_ERROR, "stub schema registry failed: " + ex);
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
        Schema schema;
        synchronized (this.lock) {
            schema = id == null ? null : this.schemasById.get(id);
        }
        if (schema == null) {
            return error(404, SCHEMA_NOT_FOUND, "Schema " + idText + " not found");
        }
        return ok(NODES.objectNode().put("schema", schema.toString()));
    }

    private Answer subjectList() {
        ArrayNode list = NODES.arrayNode();
        synchronized (this.lock) {
            this.subjects.keySet().forEach(list::add);
        }
        return ok(list);
    }

    private Answer versions(String subject) {
        ArrayNode list = NODES.arrayNode();
        synchronized (this.lock) {
            List<Integer> versions = this.subjects.get(subject);
            if (versions == null) {
                return subjectNotFound(subject);
            }
            for (int version = 1; version <= versions.size(); version++) {
                list.add(version);
            }
        }
        return ok(list);
    }

    private Answer version(String subject, String versionText) {
        synchronized (this.lock) {
            List<Integer> versions = this.subjects.get(subject);
            if (versions == null) {
                return subjectNotFound(subject);
            }
            Integer version = versionText.equals("latest") ? Integer.valueOf(versions.size()) : parseInt(versionText);
            if (version == null || version < 1 || version > versions.size()) {
                return error(404, VERSION_NOT_FOUND, "Version " + versionText + " not found.");
            }
            return ok(registered(subject, version, versions.get(version - 1)));
        }
    }

    private Answer register(String subject, byte[] body) {
        int id = register(subject, parseSchema(body));
        return ok(NODES.objectNode().put("id", id));
    }

    private Answer lookup(String subject, byte[] body) {
        Schema schema = parseSchema(body);
        synchronized (this.lock) {
            List<Integer> versions = this.subjects.get(subject);
            if (versions == null) {
                return subjectNotFound(subject);
            }
            Integer id = this.idsBySchema.get(schema);
            int index = id == null ? -1 : versions.indexOf(id);
            if (index < 0) {
                return error(404, SCHEMA_NOT_FOUND, "Schema not found");
            }
            return ok(registered(subject, index + 1, id));
        }
    }

    /** Caller holds the lock. */
    private ObjectNode registered(String subject, int version, int id) {
        return NODES.objectNode()
            .put("subject", subject)
            .put("version", version)
            .put("id", id)
            .put("schema", this.schemasById.get(id).toString());
    }

    /** The schema of a {@code {"schema": "...", "schemaType": "AVRO"}} request body. */
    private Schema parseSchema(byte[] body) {
        JsonNode request;
        try {
            request = this.json.readTree(body);
        }
        catch (IOException ex) {
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
        }
        catch (SchemaParseException ex) {
            throw new InvalidSchemaException(ex.getMessage());
        }
    }

    private static Integer parseInt(String text) {
        try {
            return Integer.valueOf(text);
        }
        catch (NumberFormatException ex) {
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
        return error(404, SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
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

    private record Answer(int status, JsonNode body) {
    }

    /** A request body that is not an Avro schema; answered 422 with {@link #INVALID_SCHEMA}. */
    private static final class InvalidSchemaException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        InvalidSchemaException(String message) {
            super(message, null, false, false);
        }

    }

}
