package dev.etl.clickhouse;

import java.net.URI;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * What a ClickHouse server supports that the sink cares about, read once at startup: the
 * {@code insert_deduplication_token} and {@code async_insert} settings (absent on 18.16, where
 * sending them is an error) and the MergeTree setting {@code non_replicated_deduplication_window}
 * (absent on 18.16: only Replicated* tables deduplicate inserts there).
 *
 * @param version                          {@code SELECT version()}
 * @param dedupToken                       the server knows {@code insert_deduplication_token}
 * @param asyncInsert                      the server knows {@code async_insert}
 * @param nonReplicatedDeduplicationWindow the server knows the MergeTree setting
 *                                         {@code non_replicated_deduplication_window}
 */
public record ClickHouseCapabilities(
        String version, boolean dedupToken, boolean asyncInsert, boolean nonReplicatedDeduplicationWindow) {

    /** Capabilities of ClickHouse 18.16 (none of the three). */
    public static ClickHouseCapabilities legacy(String version) {
        return new ClickHouseCapabilities(version, false, false, false);
    }

    /** Reads the capabilities of one replica (three small queries). */
    public static ClickHouseCapabilities detect(ClickHouseTransport transport, URI replica)
            throws ClickHouseRequestException {
        String version =
                transport.query(replica, "SELECT version() FORMAT TabSeparated").strip();
        Set<String> settings = lines(transport.query(
                replica,
                "SELECT name FROM system.settings WHERE name IN "
                        + "('insert_deduplication_token', 'async_insert') FORMAT TabSeparated"));
        Set<String> mergeTree;
        try {
            mergeTree = lines(transport.query(
                    replica,
                    "SELECT name FROM system.merge_tree_settings WHERE name = "
                            + "'non_replicated_deduplication_window' FORMAT TabSeparated"));
        } catch (ClickHouseRequestException e) {
            if (e.kind() != ClickHouseRequestException.Kind.HTTP) {
                throw e;
            }
            mergeTree = Set.of(); // very old servers have no system.merge_tree_settings
        }
        return new ClickHouseCapabilities(
                version,
                settings.contains("insert_deduplication_token"),
                settings.contains("async_insert"),
                mergeTree.contains("non_replicated_deduplication_window"));
    }

    /**
     * What every one of several replicas supports (a retry may land on any of them, so a setting is
     * sent only if all know it); the version of the first.
     */
    public static ClickHouseCapabilities common(Collection<ClickHouseCapabilities> all) {
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no capabilities to combine");
        }
        boolean token = true;
        boolean async = true;
        boolean window = true;
        String version = null;
        for (ClickHouseCapabilities c : all) {
            token &= c.dedupToken;
            async &= c.asyncInsert;
            window &= c.nonReplicatedDeduplicationWindow;
            version = version == null ? c.version : version;
        }
        return new ClickHouseCapabilities(version, token, async, window);
    }

    private static Set<String> lines(String body) {
        Set<String> out = new HashSet<>();
        for (String line : body.split("\n")) {
            if (!line.isBlank()) {
                out.add(line.strip());
            }
        }
        return out;
    }
}
