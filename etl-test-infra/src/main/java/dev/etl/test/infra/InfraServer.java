package dev.etl.test.infra;

/**
 * One of the local servers that {@code scripts/infra.sh} runs on 127.0.0.1.
 *
 * <p>The constant order is the start order: ZooKeeper before ClickHouse (ReplicatedMergeTree and
 * {@code ON CLUSTER} DDL need it), the registry last.
 */
public enum InfraServer {

    /** ZooKeeper 3.8, coordination for ClickHouse replication and distributed DDL. */
    ZOOKEEPER("zookeeper"),

    /** ClickHouse 18.16, four instances as 2 shards × 2 replicas in the cluster {@code etl}. */
    CLICKHOUSE("clickhouse"),

    /** Kafka 4.1 broker in KRaft mode. */
    KAFKA("kafka"),

    /** Apicurio Registry 2.6 with its Confluent-compatible API. */
    REGISTRY("registry");

    private final String scriptName;

    InfraServer(String scriptName) {
        this.scriptName = scriptName;
    }

    /**
     * Returns the name {@code scripts/infra.sh} uses for this server, e.g. {@code clickhouse}.
     * @return the script's component name
     */
    public String scriptName() {
        return this.scriptName;
    }
}
