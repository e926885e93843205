package dev.etl.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.testcontainers.clickhouse.ClickHouseContainer;

/** A statement over a ClickHouse container's HTTP interface, as the container's user. */
final class ClickHouseQuery {

    private ClickHouseQuery() {}

    /**
     * @return the answer (TabSeparated unless the statement says otherwise); fails the test unless the
     *     server answers 200
     */
    static String run(ClickHouseContainer clickHouse, String sql) throws Exception {
        String auth = Base64.getEncoder()
                .encodeToString(
                        (clickHouse.getUsername() + ":" + clickHouse.getPassword()).getBytes(StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        clickHouse.getHttpUrl() + "/?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .header("Authorization", "Basic " + auth)
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s: %s", sql, response.body()).isEqualTo(200);
        return response.body();
    }
}
