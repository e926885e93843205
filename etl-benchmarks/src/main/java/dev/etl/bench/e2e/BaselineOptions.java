package dev.etl.bench.e2e;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(USAGE + "; got " + String.join(" ", args));
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return new BaselineOptions(
                require(opts, "bootstrap"),
                require(opts, "registry"),
                require(opts, "topic"),
                require(opts, "group"),
                require(opts, "database"),
                List.of(require(opts, "shards").split(",")),
                Integer.parseInt(opts.getOrDefault("threads", "2")),
                Integer.parseInt(opts.getOrDefault("max-poll-records", "5000")));
    }

    private static String require(Map<String, String> opts, String key) {
        String value = opts.get(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + key + " is required; " + USAGE);
        }
        return value;
    }
}
