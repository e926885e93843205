package dev.etl.test.avro;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.Schema;

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

    private final HttpServer server;

    private final StubSchemaStore store;

    private final StubRegistryApi api;

    private final AtomicBoolean closed = new AtomicBoolean();

    private StubSchemaRegistry(HttpServer server, StubSchemaStore store, StubRegistryApi api) {
        this.server = server;
        this.store = store;
        this.api = api;
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
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot bind the stub schema registry to a port of 127.0.0.1", ex);
        }
        StubSchemaStore store = new StubSchemaStore();
        StubRegistryApi api = new StubRegistryApi(store);
        server.createContext("/", api);
        server.start();
        return new StubSchemaRegistry(server, store, api);
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
        return this.store.put(id, schema);
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
        return this.store.register(subject, schema);
    }

    /**
     * Number of HTTP requests received since the start, answered or not: a client's cache hits
     * send none, so this shows how often it really asked.
     * @return the request count
     */
    public int requests() {
        return this.api.requests();
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
}
