package dev.etl.bench.e2e;

import dev.etl.bench.BenchArgs;
import java.util.List;

/**
 * Command-line options of {@link SpringKafkaJdbcBaseline}.
 *
 * @param bootstrap Kafka bootstrap servers
 * @param registry Confluent-compatible schema registry base URL
 * @param topic topic holding the Avro orders
 * @param group consumer group id (a new group starts at the earliest offset)
 * @param database ClickHouse database holding the shard-local {@code orders} table
 * @param shardUrls one HTTP URL per shard, in shard order (the first replica of each)
 * @param threads listener threads (the container's concurrency)
 * @param maxPollRecords {@code max.poll.records}: records per listener call, so per insert batch
 */
record BaselineOptions(
        String bootstrap,
        String registry,
        String topic,
        String group,
        String database,
        List<String> shardUrls,
        int threads,
        int maxPollRecords) {

    static final String USAGE = "usage: --bootstrap H:P --registry URL --topic T --group G --database DB "
            + "--shards URL1,URL2 [--threads 2] [--max-poll-records 5000]";

    static BaselineOptions parse(String[] args) {
        BenchArgs opts = new BenchArgs(USAGE, args);
        return new BaselineOptions(
                opts.get("bootstrap"),
                opts.get("registry"),
                opts.get("topic"),
                opts.get("group"),
                opts.get("database"),
                List.of(opts.get("shards").split(",")),
                Integer.parseInt(opts.get("threads", "2")),
                Integer.parseInt(opts.get("max-poll-records", "5000")));
    }
}
