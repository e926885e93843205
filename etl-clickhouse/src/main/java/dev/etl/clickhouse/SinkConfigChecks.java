package dev.etl.clickhouse;

import dev.etl.clickhouse.ClickHouseSinkConfig.Transport;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.RetryConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The private logic of {@link ClickHouseSinkConfig}: its build step's argument checks (in the order
 * it applies them), its builder's URL parsing and its {@code toString}.
 */
final class SinkConfigChecks {

    private SinkConfigChecks() {}

    /**
     * Checks database, table and the shards' replica URIs (and, with TLS, that every replica is
     * {@code https://} and the transport can honour the TLS settings); returns an immutable copy of the shards.
     */
    static List<List<URI>> shards(
            String database, String table, List<List<URI>> shards, Transport transport, ClickHouseTls tls) {
        requireText(database, "database");
        requireText(table, "table");
        Objects.requireNonNull(shards, "shards");
        if (shards.isEmpty()) {
            throw new IllegalArgumentException(
                    "ClickHouse sink for " + database + "." + table + " needs at least one shard");
        }
        List<List<URI>> copy = new ArrayList<>(shards.size());
        for (int i = 0; i < shards.size(); i++) {
            List<URI> replicas = shards.get(i);
            if (replicas == null || replicas.isEmpty()) {
                throw new IllegalArgumentException("ClickHouse shard " + i + " has no replica URI");
            }
            for (URI uri : replicas) {
                if (uri == null
                        || uri.getScheme() == null
                        || uri.getHost() == null
                        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
                    throw new IllegalArgumentException("ClickHouse shard " + i
                            + ": replica URI must be http(s)://host:port, got "
                            + (uri == null ? null : withoutUserInfo(uri.toString())));
                }
                if (uri.getRawUserInfo() != null) {
                    // do not echo the URI: it holds a secret
                    throw new IllegalArgumentException(
                            "ClickHouse shard " + i + ": replica URI " + uri.getScheme() + "://" + uri.getHost() + ":"
                                    + uri.getPort() + " carries user info; use user/password instead");
                }
            }
            copy.add(List.copyOf(replicas));
        }
        shards = List.copyOf(copy);
        if (tls != null) {
            for (int i = 0; i < shards.size(); i++) {
                for (URI uri : shards.get(i)) {
                    if (!uri.getScheme().equals("https")) {
                        throw new IllegalArgumentException("ClickHouse shard " + i + ": TLS is configured but replica "
                                + ClickHouseShardWriter.describe(uri)
                                + " is plain http://; use the server's https_port "
                                + "with an https:// URL");
                    }
                }
            }
            if (transport == Transport.CLIENT_V2 && tls.clientCertificate()) {
                throw new IllegalArgumentException(
                        "ClickHouse TLS with a client certificate (mutual TLS) needs the HTTP "
                                + "transport: client-v2 inserts cannot present it");
            }
            if (transport == Transport.CLIENT_V2 && tls.restrictsParameters()) {
                throw new IllegalArgumentException("ClickHouse TLS restricted to protocols " + tls.protocols()
                        + " / ciphers " + tls.ciphers() + " needs the HTTP transport: client-v2 inserts cannot be "
                        + "restricted");
            }
        }
        return shards;
    }

    /** Checks that the connect and socket timeouts and the breaker's open time are positive. */
    static void timeouts(Duration connectTimeout, Duration socketTimeout, Duration breakerOpenTime) {
        requirePositive(connectTimeout, "connect timeout");
        requirePositive(socketTimeout, "socket timeout");
        requirePositive(breakerOpenTime, "breaker open time");
    }

    /**
     * Checks transport, format, breaker threshold, validation mode, batch and retry settings, then the extra
     * insert settings; returns the latter as {@link #settings} does.
     */
    static Map<String, String> required(
            Transport transport,
            InsertFormat format,
            int breakerThreshold,
            ValidationMode validation,
            BatchConfig batch,
            RetryConfig retry,
            Map<String, String> settings) {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(format, "format");
        if (breakerThreshold <= 0) {
            throw new IllegalArgumentException("breaker threshold must be > 0, got " + breakerThreshold);
        }
        Objects.requireNonNull(validation, "validation");
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(retry, "retry");
        return settings(settings);
    }

    /** Checks the extra insert settings (none owned by the sink, identifier names); returns an unmodifiable copy. */
    private static Map<String, String> settings(Map<String, String> settings) {
        settings = settings == null ? Map.of() : new LinkedHashMap<>(settings);
        for (String key : settings.keySet()) {
            if (ClickHouseSinkConfig.OWNED_SETTINGS.contains(key)) {
                throw new IllegalArgumentException("ClickHouse setting '" + key
                        + "' is set by the sink itself and cannot be overridden (owned: "
                        + ClickHouseSinkConfig.OWNED_SETTINGS + ")");
            }
            if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("ClickHouse setting name '" + key + "' is not an identifier");
            }
        }
        return java.util.Collections.unmodifiableMap(settings);
    }

    /**
     * Checks the extra rejection codes (positive, none of {@link ClickHouseErrors#TRANSIENT_CODES}); returns an
     * unmodifiable sorted copy (empty for null).
     */
    static Set<Integer> rejectionCodes(Set<Integer> codes) {
        if (codes == null) {
            return Set.of();
        }
        TreeSet<Integer> copy = new TreeSet<>();
        for (Integer code : codes) {
            if (code == null || code <= 0) {
                throw new IllegalArgumentException(
                        "ClickHouse rejection code must be a positive ClickHouse error " + "code, got " + code);
            }
            if (ClickHouseErrors.TRANSIENT_CODES.contains(code)) {
                throw new IllegalArgumentException("ClickHouse error code " + code + " cannot be a rejection code: "
                        + "it is transient (a retry may pass, see ClickHouseErrors.TRANSIENT_CODES), and treating it "
                        + "as rows the server refuses would let a SKIP policy drop them");
            }
            copy.add(code);
        }
        return Collections.unmodifiableSortedSet(copy);
    }

    private static void requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("ClickHouse sink " + what + " must be set");
        }
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("ClickHouse " + what + " must be > 0, got " + d);
        }
    }

    /**
     * The URIs of replica URLs. One that does not parse fails naming it without user info: the parser's
     * own message would echo the whole URL, a password with a raw {@code @} or {@code %} included.
     */
    static List<URI> uris(String... replicaUrls) {
        List<URI> uris = new ArrayList<>(replicaUrls.length);
        for (String url : replicaUrls) {
            try {
                uris.add(new URI(url));
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("ClickHouse replica URL " + withoutUserInfo(url)
                        + " is not a valid URL: " + e.getReason() + " at index " + e.getIndex()
                        + " (the credentials belong in user/password, not in the URL)");
            }
        }
        return uris;
    }

    /**
     * {@code url} with everything between {@code ://} and its last {@code @} cut: no part of a password
     * remains even when it holds a raw {@code @}, {@code /} or {@code %} (a URL that does not parse, or
     * parses without a host).
     */
    static String withoutUserInfo(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme < 0 || at < scheme ? url : url.substring(0, scheme + 3) + url.substring(at + 1);
    }

    /** {@link ClickHouseSinkConfig#toString()}: every component, the password masked. */
    static String describe(ClickHouseSinkConfig c) {
        return "ClickHouseSinkConfig[table=" + c.qualifiedTable() + ", shards=" + c.shards() + ", user=" + c.user()
                + ", password=" + (c.password() == null ? "null" : "******") + ", connectTimeout="
                + c.connectTimeout() + ", socketTimeout=" + c.socketTimeout() + ", compression=" + c.compression()
                + ", transport=" + c.transport() + ", breakerThreshold=" + c.breakerThreshold() + ", breakerOpenTime="
                + c.breakerOpenTime() + ", validation=" + c.validation() + ", requireDedup=" + c.requireDedup()
                + ", deterministicBlocks=" + c.deterministicBlocks() + ", format=" + c.format() + ", settings="
                + c.settings() + ", batch=" + c.batch() + ", retry=" + c.retry() + ", placementCheck="
                + c.placementCheck() + ", tls=" + c.tls() + ", rejectionCodes=" + c.rejectionCodes() + "]";
    }
}
