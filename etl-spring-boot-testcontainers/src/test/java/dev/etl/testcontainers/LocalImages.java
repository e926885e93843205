package dev.etl.testcontainers;

import org.testcontainers.utility.DockerImageName;

/**
 * The images of the servers this repository runs locally (ClickHouse 18.16, ZooKeeper 3.8, Kafka 4.1,
 * Apicurio 2.6), built from Debian's packages and the servers' Maven artifacts by
 * {@code scripts/image.sh servers}, each honouring the contract the Testcontainers module or the official
 * image has (ports, environment, start-up script). They are declared compatible with the official
 * images' names, which the Testcontainers modules check.
 */
final class LocalImages {

    static final String CLICKHOUSE = "localhost/etl/clickhouse-server:18.16";

    static final String ZOOKEEPER = "localhost/etl/zookeeper:3.8";

    static final String KAFKA = "localhost/etl/kafka:4.1";

    static final String APICURIO = "localhost/etl/apicurio-registry-mem:2.6.13.Final";

    private LocalImages() {}

    static DockerImageName clickHouse() {
        return DockerImageName.parse(CLICKHOUSE).asCompatibleSubstituteFor("clickhouse/clickhouse-server");
    }

    static DockerImageName zooKeeper() {
        return DockerImageName.parse(ZOOKEEPER).asCompatibleSubstituteFor("zookeeper");
    }

    static DockerImageName kafka() {
        return DockerImageName.parse(KAFKA).asCompatibleSubstituteFor("apache/kafka");
    }

    static DockerImageName apicurio() {
        return DockerImageName.parse(APICURIO).asCompatibleSubstituteFor("apicurio/apicurio-registry-mem");
    }
}
