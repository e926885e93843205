package dev.etl.test.infra;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One of the local servers that {@code scripts/infra.sh} runs on 127.0.0.1.
 *
 * <p>The constant order is the start order: ZooKeeper before ClickHouse (ReplicatedMergeTree and
 * {@code ON CLUSTER} DDL need it), S3 last.
 */
public enum InfraServer {

    /** ZooKeeper 3.8, coordination for ClickHouse replication and distributed DDL. */
    ZOOKEEPER("zookeeper"),

    /** ClickHouse 18.16, four instances as 2 shards × 2 replicas in the cluster {@code etl}. */
    CLICKHOUSE("clickhouse"),

    /** Kafka 4.1 broker in KRaft mode. */
    KAFKA("kafka"),

    /** Apicurio Registry 2.6 with its Confluent-compatible API. */
    REGISTRY("registry"),

    /**
     * S3Proxy 4.1, an S3-compatible server over the local filesystem: AWS SigV2/V4 authentication with
     * a local credential, path-style addressing. Not among the servers {@link LocalInfra} requires by
     * default: name it, or declare an {@link S3TestBuckets} parameter.
     */
    S3("s3");

    /** What {@link LocalInfra} requires when it names no server: every server but {@link #S3}. */
    static final Set<InfraServer> DEFAULTS =
            Collections.unmodifiableSet(EnumSet.of(ZOOKEEPER, CLICKHOUSE, KAFKA, REGISTRY));

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
