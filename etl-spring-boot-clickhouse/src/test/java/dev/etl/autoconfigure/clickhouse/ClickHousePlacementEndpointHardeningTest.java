package dev.etl.autoconfigure.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.etl.autoconfigure.EtlAutoConfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code etlplacement} endpoint against hostile or unreachable servers: one HTTP client per sink
 * whatever the number of requests, {@code readonly=1} on every query it sends, answers capped, and the
 * server's error texts masked in its result.
 */
class ClickHousePlacementEndpointHardeningTest {

    private final List<String> queryStrings = new CopyOnWriteArrayList<>();

    private volatile int status = 500;

    private volatile String answer = "Code: 516, e.displayText() = DB::Exception: etl: Authentication failed "
            + "(header Authorization: Basic ZXRsOnMzY3JldC1wdw==, password=s3cret-pw), e.what() = DB::Exception";

    private final HttpServer server = start();

    private HttpServer start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            s.createContext("/", this::handle);
            s.start();
            return s;
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        this.queryStrings.add(String.valueOf(exchange.getRequestURI().getRawQuery()));
        exchange.getRequestBody().readAllBytes();
        byte[] body = this.answer.getBytes(StandardCharsets.UTF_8);
        if (this.status != 200) {
            exchange.getResponseHeaders().add("X-ClickHouse-Exception-Code", "516");
        }
        exchange.sendResponseHeaders(this.status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        } catch (IOException ex) {
            // the client stopped reading: what a size limit does
        }
    }

    @AfterEach
    void stop() {
        this.server.stop(0);
    }

    private ApplicationContextRunner runner(String replica) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ClickHouseSinkAutoConfiguration.class,
                        ClickHousePlacementEndpointAutoConfiguration.class,
                        EtlAutoConfiguration.class,
                        EndpointAutoConfiguration.class))
                .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
                .withPropertyValues(
                        "etl.sink.clickhouse.database=shop",
                        "etl.sink.clickhouse.table=orders_local",
                        "etl.sink.clickhouse.shards[0].replicas=" + replica,
                        "etl.sink.clickhouse.username=etl",
                        "etl.sink.clickhouse.password=s3cret-pw",
                        "etl.sink.clickhouse.connect-timeout=500ms",
                        "etl.sink.clickhouse.socket-timeout=5s",
                        "management.endpoints.web.exposure.include=etlplacement",
                        "etl.sink.clickhouse.placement.distributed-table=orders",
                        "etl.sink.clickhouse.placement.sharding-key=cityHash64(id)",
                        "etl.sink.clickhouse.placement.mode=off")
                .withUserConfiguration(ClickHousePlacementAutoConfigurationTest.Beans.class);
    }

    private String url() {
        return "http://127.0.0.1:" + this.server.getAddress().getPort();
    }

    @Test
    void requestsShareOneHttpClientPerSink() {
        runner("http://127.0.0.1:1").run((context) -> {
            ClickHousePlacementEndpoint endpoint = context.getBean(ClickHousePlacementEndpoint.class);
            endpoint.placements(); // the sink's client exists from here on
            long before = selectorThreads();
            for (int i = 0; i < 8; i++) {
                assertThat(endpoint.placements().sinks().get("clickhouse").verdict())
                        .isEqualTo(ClickHousePlacementEndpoint.Verdict.UNVERIFIED);
                endpoint.placement("clickhouse");
            }
            // JVM-wide count: a client of another test may end meanwhile (fewer threads), never more here.
            assertThat(selectorThreads() - before)
                    .as("HTTP clients started by 16 more requests")
                    .isLessThanOrEqualTo(0);
        });
    }

    @Test
    void everyQueryIsReadOnlyAndTheServersErrorTextIsMasked() {
        runner(url()).run((context) -> {
            ClickHousePlacementEndpoint.SinkPlacement result =
                    context.getBean(ClickHousePlacementEndpoint.class).placement("clickhouse");
            assertThat(result.verdict()).isEqualTo(ClickHousePlacementEndpoint.Verdict.UNVERIFIED);
            assertThat(this.queryStrings)
                    .isNotEmpty()
                    .allSatisfy((query) -> assertThat(query).contains("readonly=1"));
            assertThat(result.problems()).singleElement().asString().contains("Authentication failed", "Basic ******");
            assertThat(result.toString()).doesNotContain("ZXRsOnMzY3JldC1wdw", "s3cret-pw");
        });
    }

    @Test
    void anAnswerOverTheCapIsNotReadAndReportedUnverified() {
        this.status = 200;
        this.answer = "x".repeat((1 << 20) + 1); // PlacementQueries.MAX_ANSWER_BYTES + 1
        runner(url()).run((context) -> {
            ClickHousePlacementEndpoint.SinkPlacement result =
                    context.getBean(ClickHousePlacementEndpoint.class).placement("clickhouse");
            assertThat(result.verdict()).isEqualTo(ClickHousePlacementEndpoint.Verdict.UNVERIFIED);
            assertThat(result.problems()).singleElement().asString().contains("longer than 1048576 bytes");
        });
    }

    private static long selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter((t) ->
                        t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager"))
                .count();
    }
}
