package dev.etl.test.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InfraEndpointsTest {

    private static final String SAMPLE = """
            zookeeper.connect=127.0.0.1:12181
            clickhouse.cluster=etl
            clickhouse.shards=2
            clickhouse.shard.1.replicas=http://127.0.0.1:18123,http://127.0.0.1:18124
            clickhouse.shard.2.replicas=http://127.0.0.1:18125/, http://127.0.0.1:18126
            kafka.bootstrap=127.0.0.1:19092
            registry.url=http://127.0.0.1:18081/apis/ccompat/v7/
            """;

    @Test
    void loadsWhatTheInfraScriptWrites(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME), SAMPLE);

        InfraEndpoints endpoints = InfraEndpoints.load(file);

        assertThat(endpoints.zookeeperConnect()).isEqualTo("127.0.0.1:12181");
        assertThat(endpoints.clickhouseCluster()).isEqualTo("etl");
        assertThat(endpoints.clickhouseShards()).extracting(InfraEndpoints.ClickHouseShard::number).containsExactly(1, 2);
        assertThat(endpoints.clickhouseShard(1).replicaUrl(2)).isEqualTo("http://127.0.0.1:18124");
        assertThat(endpoints.clickhouseShard(2).replicaUrls()).containsExactly("http://127.0.0.1:18125",
                "http://127.0.0.1:18126");
        assertThat(endpoints.clickhouseReplicaUrls()).hasSize(4);
        assertThat(endpoints.kafkaBootstrap()).isEqualTo("127.0.0.1:19092");
        assertThat(endpoints.registryUrl()).isEqualTo("http://127.0.0.1:18081/apis/ccompat/v7");
    }

    @Test
    void missingKeyIsNamedWithTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve(InfraEndpoints.FILE_NAME),
                SAMPLE.replace("kafka.bootstrap=127.0.0.1:19092\n", ""));

        assertThatIllegalArgumentException().isThrownBy(() -> InfraEndpoints.load(file))
            .withMessageContaining(file.toString())
            .withMessageContaining("kafka.bootstrap");
    }

    @Test
    void shardWithoutReplicasIsRejected() {
        Properties properties = new Properties();
        properties.setProperty("zookeeper.connect", "127.0.0.1:12181");
        properties.setProperty("clickhouse.cluster", "etl");
        properties.setProperty("clickhouse.shards", "1");
        properties.setProperty("clickhouse.shard.1.replicas", " , ");
        properties.setProperty("kafka.bootstrap", "127.0.0.1:19092");
        properties.setProperty("registry.url", "http://127.0.0.1:18081");

        assertThatIllegalArgumentException().isThrownBy(() -> InfraEndpoints.parse(properties))
            .withMessageContaining("clickhouse.shard.1.replicas");
    }

}
