package dev.etl.avro;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;

/** An in-process stand-in for the Confluent registry's by-id endpoint, with scripted failures. */
final class StubRegistry implements AutoCloseable {
    private final HttpServer server;
    private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();
    private final ObjectMapper json = new ObjectMapper();
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger failuresLeft = new AtomicInteger();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    volatile int failStatus = 500;
    volatile String failMessage = "scripted failure";
    volatile long delayMs;
    /** When positive: every answer by id is a schema of about this many bytes, sent chunked when {@link #chunked}. */
    volatile int hugeAnswerBytes;

    volatile boolean chunked;
    /** When positive: answers by id are sent a byte at a time, this long apart. */
    volatile long trickleMs;

    StubRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool((r) -> {
            Thread t = new Thread(r, "stub-registry");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    StubRegistry put(int id, Schema schema) {
        schemas.put(id, schema);
        return this;
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(auth == null ? "" : auth);
        try {
            if (delayMs > 0) {
                Thread.sleep(delayMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            respond(
                    exchange,
                    failStatus,
                    "{\"error_code\": " + failStatus + "01, \"message\": \"" + failMessage.replace("\"", "\\\"")
                            + "\"}");
            return;
        }
        String path = exchange.getRequestURI().getPath();
        if (path.startsWith("/schemas/ids/") && hugeAnswerBytes > 0) {
            ObjectNode body = json.createObjectNode();
            body.put(
                    "schema",
                    "{\"type\":\"record\",\"name\":\"Big\",\"doc\":\"" + "x".repeat(hugeAnswerBytes)
                            + "\",\"fields\":[]}");
            byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, chunked ? 0 : bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            } catch (IOException e) {
                // the client hung up: what a size limit does
            }
            return;
        }
        if (path.startsWith("/schemas/ids/") && trickleMs > 0) {
            Schema schema = schemas.get(Integer.parseInt(path.substring("/schemas/ids/".length())));
            ObjectNode body = json.createObjectNode();
            body.put("schema", String.valueOf(schema));
            byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                for (byte b : bytes) {
                    out.write(b);
                    out.flush();
                    Thread.sleep(trickleMs);
                }
            } catch (IOException | InterruptedException e) {
                // the client hung up
            }
            return;
        }
        if (path.startsWith("/schemas/ids/")) {
            Schema schema = schemas.get(Integer.parseInt(path.substring("/schemas/ids/".length())));
            if (schema == null) {
                respond(exchange, 404, "{\"error_code\": 40403, \"message\": \"Schema not found\"}");
                return;
            }
            ObjectNode body = json.createObjectNode();
            body.put("schema", schema.toString());
            respond(exchange, 200, body.toString());
            return;
        }
        if (path.equals("/subjects")) {
            respond(exchange, 200, "[\"orders-value\"]");
            return;
        }
        if (path.startsWith("/ui/")) {
            // A web page where the API was expected (e.g. a registry's UI or a proxy's landing page).
            respond(exchange, 200, "<html><body>Registry UI</body></html>");
            return;
        }
        respond(exchange, 404, "{\"error_code\": 404, \"message\": \"HTTP 404 Not Found\"}");
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
