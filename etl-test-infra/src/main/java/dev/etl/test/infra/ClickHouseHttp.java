package dev.etl.test.infra;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Kept-alive connections the server closed.</b> Connections are pooled, and ClickHouse closes one
 * that stayed idle for its {@code keep_alive_timeout} (3 s here). A statement sent on a pooled connection
 * in the same moment finds it closed before any byte of an answer ({@code IOException: HTTP/1.1 header
 * parser received no bytes}); the JDK client sends such a request again by itself only for GET. So a
 * statement whose connection closed before any byte of an answer arrived is sent once more, at once, on
 * another connection. A timeout or a refused connection is not retried.
 *
 * <p>Thread-safe; instances are cheap, but {@link #query(String, String)} shares one.
 */
public final class ClickHouseHttp {

    private static final Logger log = LoggerFactory.getLogger(ClickHouseHttp.class);

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
            response = send(replicaUrl, sql, request);
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
     * Sends {@code request}, and once more at once when its connection closed before any byte of an
     * answer: a kept-alive connection the server closed as the request went out. The server never read
     * such a request; the rare other case, a server that died while it ran the statement, fails again
     * on the second try (the connection is refused).
     */
    private HttpResponse<String> send(String replicaUrl, String sql, HttpRequest request)
            throws IOException, InterruptedException {
        AnswerWatch first = new AnswerWatch();
        try {
            return client.send(request, first);
        } catch (IOException ex) {
            if (first.answered || ex instanceof HttpTimeoutException || refused(ex)) {
                throw ex;
            }
            log.info(
                    "ClickHouse {} closed the connection before answering [{}] ({}): sending it again",
                    replicaUrl,
                    sql.length() <= 100 ? sql : sql.substring(0, 100) + "…",
                    ex.toString());
            return client.send(request, new AnswerWatch());
        }
    }

    private static boolean refused(IOException ex) {
        return ex instanceof ConnectException || ex.getCause() instanceof ConnectException;
    }

    /** The answer's body as text; notes whether the status line and headers of an answer arrived. */
    private static final class AnswerWatch implements HttpResponse.BodyHandler<String> {

        private volatile boolean answered;

        @Override
        public HttpResponse.BodySubscriber<String> apply(HttpResponse.ResponseInfo info) {
            answered = true;
            return HttpResponse.BodySubscribers.ofString(StandardCharsets.UTF_8);
        }
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
