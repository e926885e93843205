package dev.etl.sample;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;

/**
 * The one endpoint of a Confluent-compatible registry that a consumer calls,
 * {@code GET /schemas/ids/{id}}, served in-process on a free port: enough for the production
 * {@code SchemaRegistryClient} and {@code AvroDeserializer} to run unchanged in a test.
 */
final class StubSchemaRegistry implements AutoCloseable {
    private final HttpServer server;
    private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();
    private final ObjectMapper json = new ObjectMapper();

    StubSchemaRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    StubSchemaRegistry register(int id, Schema schema) {
        schemas.put(id, schema);
        return this;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Schema schema = path.startsWith("/schemas/ids/")
                ? schemas.get(Integer.parseInt(path.substring("/schemas/ids/".length())))
                : null;
        if (schema == null) {
            respond(exchange, 404, "{\"error_code\": 40403, \"message\": \"Schema not found\"}");
        } else {
            respond(exchange, 200, json.createObjectNode().put("schema", schema.toString()).toString());
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
