package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class ClickHouseTableAlterTest {

    private static final URI A1 = URI.create("http://a1:8123");
    private static final URI A2 = URI.create("http://a2:8123");
    private static final URI B1 = URI.create("http://b1:8123");
    private static final URI B2 = URI.create("http://b2:8123");

    private static final ClickHouseSinkConfig CONFIG = ClickHouseSinkConfig.builder()
            .table("shop", "orders")
            .shard(A1, A2)
            .shard(B1, B2)
            .build();

    private static final NewColumn CHANNEL = new NewColumn(new ClickHouseColumn("channel", "Nullable(String)"), "NULL");

    private static final NewColumn TIER = new NewColumn(new ClickHouseColumn("tier", "String"), "'basic'");

    /**
     * Replicas as a stub: each has the table's columns; an ALTER sent to one adds the column to it and (a
     * Replicated table) to the other replica of its shard, or with ON CLUSTER to all four.
     */
    static final class Replicas implements ClickHouseTransport {
        final Map<URI, List<String>> columns = new HashMap<>();
        final List<String> sent = new ArrayList<>();
        final Map<URI, ClickHouseRequestException> failing = new ConcurrentHashMap<>();
        boolean replicate = true;

        Replicas() {
            for (URI r : List.of(A1, A2, B1, B2)) {
                columns.put(r, new ArrayList<>(List.of("id\tUInt64\t\t")));
            }
        }

        @Override
        public long insert(URI replica, ClickHouseInsert insert, byte[] body, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String query(URI replica, String sql) throws ClickHouseRequestException {
            ClickHouseRequestException failure = failing.get(replica);
            if (failure != null) {
                throw failure;
            }
            if (sql.startsWith("SELECT name, type")) {
                return String.join("\n", columns.get(replica)) + "\n";
            }
            sent.add(replica.getHost() + ": " + sql);
            String name = sql.replaceAll(".* ADD COLUMN `([^`]*)` .*", "$1");
            String type = sql.replaceAll(".* ADD COLUMN `[^`]*` (\\S+).*", "$1");
            List<URI> targets = sql.contains(" ON CLUSTER ")
                    ? List.of(A1, A2, B1, B2)
                    : replicate
                            ? (replica == A1 || replica == A2 ? List.of(A1, A2) : List.of(B1, B2))
                            : List.of(replica);
            if (sql.contains("`orders_all`")) {
                return "";
            }
            for (URI target : targets) {
                if (columns.get(target).stream().anyMatch((c) -> c.startsWith(name + "\t"))) {
                    throw new ClickHouseRequestException(
                            ClickHouseRequestException.Kind.HTTP,
                            500,
                            44,
                            "Code: 44, e.displayText() = DB::Exception: Cannot add column " + name
                                    + ": column with this name already exists",
                            null);
                }
                columns.get(target).add(name + "\t" + type + "\tDEFAULT\t");
            }
            return "";
        }
    }

    @Test
    void statementsNameTheClusterTheTypeAndTheDefault() {
        ClickHouseTableAlter alter =
                new ClickHouseTableAlter(CONFIG, new Replicas(), "etl", "orders_all", Duration.ofSeconds(1));
        assertThat(alter.statements(List.of(CHANNEL)))
                .containsExactly(
                        "ALTER TABLE `shop`.`orders` ON CLUSTER `etl` ADD COLUMN `channel` Nullable(String) DEFAULT NULL",
                        "ALTER TABLE `shop`.`orders_all` ON CLUSTER `etl` ADD COLUMN `channel` Nullable(String) DEFAULT NULL");
        ClickHouseTableAlter local =
                new ClickHouseTableAlter(CONFIG, new Replicas(), null, null, Duration.ofSeconds(1));
        assertThat(local.statements(List.of(new NewColumn(new ClickHouseColumn("n", "Int32"), ""))))
                .containsExactly("ALTER TABLE `shop`.`orders` ADD COLUMN `n` Int32");
    }

    @Test
    void onClusterTheStatementGoesToOneReplicaAndEveryReplicaIsWaitedFor() {
        Replicas replicas = new Replicas();
        new ClickHouseTableAlter(CONFIG, replicas, "etl", null, Duration.ofSeconds(5)).add(List.of(CHANNEL, TIER));
        assertThat(replicas.sent).hasSize(2).allMatch((s) -> s.startsWith("a1: ") && s.contains("ON CLUSTER"));
        replicas.columns.values().forEach((c) -> assertThat(c).hasSize(3));
    }

    @Test
    void withoutAClusterEachShardsFirstReachableReplicaGetsIt() {
        Replicas replicas = new Replicas();
        replicas.failing.put(
                A1, new ClickHouseRequestException(ClickHouseRequestException.Kind.CONNECT, -1, -1, "refused", null));
        // a1 down: its columns are read from a2 during the wait only once a1 answers again
        Thread healer = new Thread(() -> {
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                return;
            }
            replicas.failing.clear();
        });
        healer.start();
        new ClickHouseTableAlter(CONFIG, replicas, null, null, Duration.ofSeconds(5)).add(List.of(CHANNEL));
        assertThat(replicas.sent)
                .containsExactly(
                        "a2: ALTER TABLE `shop`.`orders` ADD COLUMN `channel` Nullable(String) DEFAULT NULL",
                        "b1: ALTER TABLE `shop`.`orders` ADD COLUMN `channel` Nullable(String) DEFAULT NULL");
    }

    @Test
    void aColumnThatExistsIsTakenAsAddedWhenItsTypeIsTheSame() {
        Replicas replicas = new Replicas();
        replicas.columns.values().forEach((c) -> c.add("channel\tNullable(String)\tDEFAULT\tNULL"));
        new ClickHouseTableAlter(CONFIG, replicas, "etl", null, Duration.ofSeconds(5)).add(List.of(CHANNEL));
        assertThat(replicas.sent).hasSize(1);
    }

    @Test
    void aColumnThatExistsWithAnotherTypeFailsNamingBoth() {
        Replicas replicas = new Replicas();
        replicas.columns.values().forEach((c) -> c.add("channel\tString\t\t"));
        assertThatThrownBy(() -> new ClickHouseTableAlter(CONFIG, replicas, "etl", null, Duration.ofSeconds(5))
                        .add(List.of(CHANNEL)))
                .isInstanceOf(ClickHouseAlterException.class)
                .hasMessageContaining("has type String, not Nullable(String)");
    }

    @Test
    void aRefusedAlterFailsWithTheStatementAndTheServersMessage() {
        Replicas replicas = new Replicas();
        replicas.failing.put(
                A1,
                new ClickHouseRequestException(
                        ClickHouseRequestException.Kind.HTTP,
                        500,
                        164,
                        "Code: 164, e.displayText() = DB::Exception: Cannot execute query in readonly mode",
                        null));
        assertThatThrownBy(() -> new ClickHouseTableAlter(CONFIG, replicas, "etl", null, Duration.ofSeconds(5))
                        .add(List.of(CHANNEL)))
                .isInstanceOf(ClickHouseAlterException.class)
                .hasMessageContaining("ALTER TABLE `shop`.`orders` ON CLUSTER `etl` ADD COLUMN `channel`")
                .hasMessageContaining("readonly mode")
                .satisfies((e) ->
                        assertThat(((ClickHouseAlterException) e).replica()).isEqualTo("http://a1:8123"));
    }

    @Test
    void replicasThatDoNotShowTheColumnInTimeFailTheChangeNamingThem() {
        Replicas replicas = new Replicas();
        replicas.replicate = false; // the shards' second replicas never get it
        assertThatThrownBy(() -> new ClickHouseTableAlter(CONFIG, replicas, null, null, Duration.ofMillis(600))
                        .add(List.of(CHANNEL)))
                .isInstanceOf(ClickHouseAlterException.class)
                .hasMessageContaining("http://a2:8123: lacks [channel]")
                .hasMessageContaining("http://b2:8123: lacks [channel]");
    }
}
