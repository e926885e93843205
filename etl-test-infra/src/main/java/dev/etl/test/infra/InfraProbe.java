package dev.etl.test.infra;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Asks each local server whether it answers, with short timeouts: ClickHouse {@code SELECT 1} on
 * every instance, ZooKeeper's {@code srvr} command, a Kafka TCP connect then
 * {@code describeCluster}, the registry's {@code GET /subjects}, and a signed S3 {@code ListBuckets}.
 */
final class InfraProbe {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final ClickHouseHttp clickHouse = new ClickHouseHttp(TIMEOUT, TIMEOUT);
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /**
     * Probes one server.
     * @return {@code null} when it answers, otherwise what did not answer and how
     */
    String problem(InfraServer server, InfraEndpoints endpoints) {
        return switch (server) {
            case ZOOKEEPER -> zookeeperProblem(endpoints.zookeeperConnect());
            case CLICKHOUSE -> clickHouseProblem(endpoints);
            case KAFKA -> kafkaProblem(endpoints.kafkaBootstrap());
            case REGISTRY -> registryProblem(endpoints.registryUrl());
            case S3 -> s3Problem(endpoints);
        };
    }

    /** A signed ListBuckets proves the S3 API answers and accepts the listed credential. */
    private String s3Problem(InfraEndpoints endpoints) {
        if (!endpoints.hasS3()) {
            return InfraEndpoints.FILE_NAME + " lists no S3 server (written by an older " + InfraDirectory.SCRIPT + ")";
        }
        S3InfraEndpoints s3 = endpoints.s3();
        try (S3Client client = S3TestBuckets.newProbeClient(s3, TIMEOUT)) {
            client.listBuckets();
            return null;
        } catch (SdkException ex) {
            return "S3 at " + s3.endpoint() + " did not answer a signed ListBuckets: " + ex;
        }
    }

    private String clickHouseProblem(InfraEndpoints endpoints) {
        StringBuilder problems = new StringBuilder();
        for (String url : endpoints.clickhouseReplicaUrls()) {
            if (!clickHouse.ping(url, TIMEOUT)) {
                problems.append(problems.isEmpty() ? "" : ", ").append(url);
            }
        }
        return problems.isEmpty() ? null : "ClickHouse did not answer SELECT 1 at " + problems;
    }

    private String zookeeperProblem(String connect) {
        InetSocketAddress address = firstAddress(connect);
        try (Socket socket = new Socket()) {
            socket.connect(address, (int) TIMEOUT.toMillis());
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // Any answer means a live server; "not in the whitelist" is an answer too.
            InputStream in = socket.getInputStream();
            return (in.read() >= 0)
                    ? null
                    : "ZooKeeper at " + connect + " closed the connection without answering srvr";
        } catch (IOException ex) {
            return "ZooKeeper at " + connect + " did not answer: " + ex;
        }
    }

    private String kafkaProblem(String bootstrap) {
        InetSocketAddress address = firstAddress(bootstrap);
        try (Socket socket = new Socket()) {
            socket.connect(address, (int) TIMEOUT.toMillis());
        } catch (IOException ex) {
            return "Kafka at " + bootstrap + " refused a TCP connection: " + ex;
        }
        int timeoutMs = (int) TIMEOUT.toMillis();
        Map<String, Object> config = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                timeoutMs,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                timeoutMs,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "etl-test-infra-probe");
        try (Admin admin = Admin.create(config)) {
            int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs))
                    .nodes()
                    .get(timeoutMs, TimeUnit.MILLISECONDS)
                    .size();
            return (nodes > 0) ? null : "Kafka at " + bootstrap + " describes a cluster without brokers";
        } catch (ExecutionException | TimeoutException ex) {
            return "Kafka at " + bootstrap + " did not answer describeCluster: " + ex;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "interrupted while probing Kafka at " + bootstrap;
        }
    }

    private String registryProblem(String registryUrl) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(registryUrl + "/subjects"))
                .timeout(TIMEOUT)
                .GET()
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return (response.statusCode() == 200)
                    ? null
                    : "schema registry GET " + request.uri() + " answered HTTP " + response.statusCode();
        } catch (IOException ex) {
            return "schema registry at " + registryUrl + " did not answer: " + ex;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "interrupted while probing the schema registry at " + registryUrl;
        }
    }

    private static InetSocketAddress firstAddress(String hostPorts) {
        String first = hostPorts.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("expected host:port, got '" + first + "'");
        }
        return new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }
}
