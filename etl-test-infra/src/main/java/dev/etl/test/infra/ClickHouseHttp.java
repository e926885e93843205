package dev.etl.test.infra;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A minimal ClickHouse HTTP client for tests: one statement per call, the result as text.
 *
 * <p>Works against every server version we meet, including 18.16 where client-v2's typed reads
 * fail. A {@code SELECT} without a {@code FORMAT} clause answers in the server's HTTP default,
 * {@code TabSeparated} (one row per line, tab between columns, no header); the response is never
 * compressed because no {@code Accept-Encoding} is sent. The statement travels in the POST body, so
 * DDL and {@code SYSTEM} statements work too; {@code wait_end_of_query=1} makes the server report
 * errors that happen after the first bytes of the answer as a non-200 status.
 *
 * <p>Thread-safe; instances are cheap, but {@link #query(String, String)} shares one.
 */
public final class ClickHouseHttp {

    private static final ClickHouseHttp SHARED = new ClickHouseHttp(Duration.ofSeconds(2), Duration.ofMinutes(3));

    private final HttpClient client;
    private final Duration requestTimeout;

    /**
     * Creates a client.
     * @param connectTimeout how long to wait for a TCP connection
     * @param requestTimeout how long to wait for a whole answer (distributed DDL on 18.16 waits for
     * every host, up to its {@code distributed_ddl_task_timeout})
     */
    public ClickHouseHttp(Duration connectTimeout, Duration requestTimeout) {
        this.client = HttpClient.newBuilder()
                .connectTimeout(connectTimeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        this.requestTimeout = requestTimeout;
    }

    /**
     * Runs one statement on one instance with the shared client and returns the answer.
     * @param replicaUrl the instance's HTTP base URL, e.g. {@code http://127.0.0.1:18123}
     * @param sql one statement, without a trailing semicolon
     * @return the response body, {@code TabSeparated} unless {@code sql} names another format;
     * empty for DDL and {@code INSERT}
     * @throws ClickHouseHttpException if the server answers with a non-200 status or cannot be
     * reached
     */
    public static String query(String replicaUrl, String sql) {
        return SHARED.execute(replicaUrl, sql);
    }

    /**
     * Runs one statement on one instance and returns the answer.
     * @param replicaUrl the instance's HTTP base URL
     * @param sql one statement, without a trailing semicolon
     * @return the response body
     * @throws ClickHouseHttpException if the server answers with a non-200 status or cannot be
     * reached
     */
    public String execute(String replicaUrl, String sql) {
        return execute(replicaUrl, sql, Map.of());
    }

    /**
     * Runs one statement on one instance with query settings in the URL, e.g.
     * {@code allow_experimental_low_cardinality_type=1} (18.16 has no {@code SETTINGS} clause for
     * DDL, and {@code ON CLUSTER} DDL does not carry settings to the other hosts: run such DDL on each
     * instance).
     * @param replicaUrl the instance's HTTP base URL
     * @param sql one statement, without a trailing semicolon
     * @param settings setting names and values, URL-encoded here
     * @return the response body
     * @throws ClickHouseHttpException if the server answers with a non-200 status or cannot be
     * reached
     */
    public String execute(String replicaUrl, String sql, Map<String, String> settings) {
        StringBuilder query = new StringBuilder("wait_end_of_query=1");
        settings.forEach((name, value) -> query.append('&')
                .append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        HttpRequest request = HttpRequest.newBuilder(uri(replicaUrl, query.toString()))
                .timeout(requestTimeout)
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException ex) {
            throw new ClickHouseHttpException(replicaUrl, sql, -1, "cannot reach server: " + ex, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new ClickHouseHttpException(replicaUrl, sql, -1, "interrupted", ex);
        }
        if (response.statusCode() != 200) {
            throw new ClickHouseHttpException(
                    replicaUrl, sql, response.statusCode(), response.body().strip(), null);
        }
        return response.body();
    }

    /**
     * Runs {@code SELECT 1} with a short timeout.
     * @param replicaUrl the instance's HTTP base URL
     * @param timeout how long to wait for the answer
     * @return whether the instance answered {@code 1}
     */
    boolean ping(String replicaUrl, Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(
                        uri(replicaUrl, "query=" + URLEncoder.encode("SELECT 1", StandardCharsets.UTF_8)))
                .timeout(timeout)
                .GET()
                .build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().strip().equals("1");
        } catch (IOException ex) {
            return false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static URI uri(String replicaUrl, String query) {
        String base = replicaUrl.endsWith("/") ? replicaUrl : replicaUrl + "/";
        return URI.create(base + "?" + query);
    }
}
