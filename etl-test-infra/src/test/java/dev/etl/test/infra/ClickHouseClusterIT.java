package dev.etl.test.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local ClickHouse cluster is what the sink is written against: two shards of two replicas,
 * {@code ON CLUSTER} DDL, replication through ZooKeeper, RowBinary inserts with client-v2, and
 * block deduplication on ReplicatedMergeTree.
 */
@LocalInfra(InfraServer.CLICKHOUSE)
class ClickHouseClusterIT {

    private static final List<Object[]> FIRST_ROWS =
            List.of(new Object[] {1L, "alpha"}, new Object[] {2L, "βήτα"}, new Object[] {3L, "g".repeat(300)});

    private static final List<Object[]> SECOND_ROWS = List.of(new Object[] {4L, "delta"}, new Object[] {5L, ""});

    private static String table;
    private static String shard1replica1;
    private static String shard1replica2;
    private static String shard2replica1;
    private static Client client;

    @BeforeAll
    static void createReplicatedTable(ClickHouseTestDatabase db) {
        InfraEndpoints endpoints = db.endpoints();
        table = db.table("t");
        shard1replica1 = endpoints.clickhouseShard(1).replicaUrl(1);
        shard1replica2 = endpoints.clickhouseShard(1).replicaUrl(2);
        shard2replica1 = endpoints.clickhouseShard(2).replicaUrl(1);
        db.execute("CREATE TABLE " + table + " ON CLUSTER " + db.cluster() + " (id UInt64, name String) "
                + "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/" + db.name()
                + "/t', '{replica}') ORDER BY id");
        client = client(shard1replica1);
    }

    @AfterAll
    static void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void rowBinaryBlockReplicatesAndIdenticalBlockIsDeduplicated() throws Exception {
        byte[] first = rowBinary(FIRST_ROWS);

        insert(first);
        ClickHouseHttp.query(shard1replica2, "SYSTEM SYNC REPLICA " + table);

        assertThat(ClickHouseHttp.query(
                        shard1replica2, "SELECT id, name FROM " + table + " ORDER BY id FORMAT TabSeparated"))
                .isEqualTo("1\talpha\n2\tβήτα\n3\t" + "g".repeat(300) + "\n");
        assertThat(count(shard2replica1)).as("rows never reach the other shard").isZero();

        // The same bytes again, this time into the other replica: ZooKeeper knows the block's checksum.
        try (Client replica2 = client(shard1replica2)) {
            insert(replica2, first);
        }
        ClickHouseHttp.query(shard1replica1, "SYSTEM SYNC REPLICA " + table);
        assertThat(count(shard1replica1)).isEqualTo(FIRST_ROWS.size());
        assertThat(count(shard1replica2)).isEqualTo(FIRST_ROWS.size());

        insert(rowBinary(SECOND_ROWS));
        ClickHouseHttp.query(shard1replica2, "SYSTEM SYNC REPLICA " + table);
        assertThat(count(shard1replica2)).isEqualTo(FIRST_ROWS.size() + SECOND_ROWS.size());
    }

    @Test
    void shardMacrosDifferAcrossShardsAndReplicaMacrosAreUnique(InfraEndpoints endpoints) {
        Set<String> replicaMacros = new HashSet<>();
        for (InfraEndpoints.ClickHouseShard shard : endpoints.clickhouseShards()) {
            for (String url : shard.replicaUrls()) {
                assertThat(macro(url, "shard")).as("{shard} at %s", url).isEqualTo(String.valueOf(shard.number()));
                replicaMacros.add(macro(url, "replica"));
            }
        }
        assertThat(replicaMacros).hasSize(endpoints.clickhouseReplicaUrls().size());
    }

    @Test
    void clusterListsEveryInstance(InfraEndpoints endpoints) {
        for (String url : endpoints.clickhouseReplicaUrls()) {
            assertThat(ClickHouseHttp.query(
                                    url,
                                    "SELECT count() FROM system.clusters WHERE cluster = '"
                                            + endpoints.clickhouseCluster() + "'")
                            .strip())
                    .as("system.clusters at %s", url)
                    .isEqualTo("4");
        }
    }

    /** client-v2 for inserts only: its typed reads fail on 18.16, so reads go through ClickHouseHttp. */
    private static Client client(String replicaUrl) {
        return new Client.Builder()
                .addEndpoint(replicaUrl)
                .setUsername("default")
                .setPassword("")
                .compressServerResponse(false)
                .build();
    }

    private static void insert(byte[] block) throws Exception {
        insert(client, block);
    }

    private static void insert(Client target, byte[] block) throws Exception {
        InsertSettings settings = new InsertSettings().serverSetting("wait_end_of_query", "1");
        // wait_end_of_query=1: the future completes only once the part is written (or fails).
        InsertResponse response = target.insert(
                        table, new ByteArrayInputStream(block), ClickHouseFormat.RowBinary, settings)
                .get(30, TimeUnit.SECONDS);
        response.close();
    }

    /** 18.16 has no getMacro(); system.macros has the same values. */
    private static String macro(String replicaUrl, String name) {
        return ClickHouseHttp.query(replicaUrl, "SELECT substitution FROM system.macros WHERE macro = '" + name + "'")
                .strip();
    }

    private static long count(String replicaUrl) {
        return Long.parseLong(
                ClickHouseHttp.query(replicaUrl, "SELECT count() FROM " + table).strip());
    }

    /** RowBinary for (UInt64, String): 8 bytes little-endian, then LEB128 length and UTF-8 bytes. */
    private static byte[] rowBinary(List<Object[]> rows) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer uint64 = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        for (Object[] row : rows) {
            uint64.clear();
            uint64.putLong((Long) row[0]);
            out.write(uint64.array(), 0, 8);
            byte[] utf8 = ((String) row[1]).getBytes(StandardCharsets.UTF_8);
            for (int length = utf8.length; ; length >>>= 7) {
                if ((length & ~0x7F) == 0) {
                    out.write(length);
                    break;
                }
                out.write((length & 0x7F) | 0x80);
            }
            out.write(utf8, 0, utf8.length);
        }
        return out.toByteArray();
    }
}
