package dev.etl.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic ids (Kafka's KIP-516: a UUID given to a topic when it is created, new when a topic of the
 * same name is created again, different on another cluster) of the topics one {@link KafkaSource} reads.
 * A partition's {@link dev.etl.source.SourceLane#partitionIdentity identity} is its name and its topic's
 * id, which goes into every deterministic block's deduplication token: so a topic deleted and recreated,
 * or the same name on another cluster, never produces a block that a token-aware server drops as a
 * duplicate of one written from the old topic (the new topic's offsets start at 0 again).
 *
 * <p>Looked up once per topic, when a lane is first assigned a partition of it (inside the rebalance
 * callback, where the committed offsets are read too), through an {@link Admin} client built from the
 * consumer's connection settings and kept until the source closes. A lookup that fails (brokers slow,
 * no describe right) is logged and retried at the next assignment; meanwhile the partition's identity
 * is its name alone, which can cost duplicates after a recreation, as before ids were used.
 *
 * <p>Thread-safe: lanes resolve concurrently; reads take no lock.
 */
final class TopicIds implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopicIds.class);

    /** How the ids are fetched. */
    interface Lookup extends AutoCloseable {
        /** Topic → id for the {@code topics} that exist; throws when the brokers could not be asked. */
        Map<String, String> describe(Collection<String> topics) throws Exception;

        @Override
        default void close() {}
    }

    /** No lookup: every identity is the partition's name (sources over a mock consumer). */
    static final Lookup NONE = topics -> Map.of();

    private final ConcurrentHashMap<String, String> ids = new ConcurrentHashMap<>();
    private final Lookup lookup;
    private final String group;

    TopicIds(Lookup lookup, String group) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.group = group;
    }

    /** Ids looked up with an {@link Admin} client over {@code consumerProperties}' connection settings. */
    static TopicIds admin(Map<String, Object> consumerProperties, String group, Duration timeout) {
        return new TopicIds(new AdminLookup(consumerProperties, timeout), group);
    }

    /** Looks up the ids of those of {@code partitions}' topics not known yet. Blocks up to the timeout. */
    void resolve(Collection<TopicPartition> partitions) {
        Set<String> missing = new LinkedHashSet<>();
        for (TopicPartition tp : partitions) {
            if (!ids.containsKey(tp.topic())) {
                missing.add(tp.topic());
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        synchronized (this) {
            missing.removeIf(ids::containsKey);
            if (missing.isEmpty()) {
                return;
            }
            try {
                Map<String, String> found = lookup.describe(missing);
                ids.putAll(found);
                if (lookup != NONE && !found.keySet().containsAll(missing)) {
                    List<String> absent = new ArrayList<>(missing);
                    absent.removeAll(found.keySet());
                    log.warn(
                            "group={} no topic id for {}: deterministic blocks of these topics are named by "
                                    + "partition name only (a topic recreated under the same name could share "
                                    + "dedup tokens with the old one)",
                            group,
                            absent);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn(
                        "group={} could not read the topic ids of {} ({}); deterministic blocks of these topics are "
                                + "named by partition name only until the next assignment retries",
                        group,
                        missing,
                        String.valueOf(e instanceof ExecutionException ? e.getCause() : e));
            }
        }
    }

    /** {@code orders-3@<topic id>}, or {@code orders-3} while the topic's id is unknown. */
    String identity(TopicPartition tp) {
        String id = ids.get(tp.topic());
        String name = tp.topic() + "-" + tp.partition();
        return id == null ? name : name + "@" + id;
    }

    @Override
    public void close() {
        try {
            lookup.close();
        } catch (Exception e) {
            log.debug("closing the topic id lookup failed", e);
        }
    }

    /** The production lookup: an {@link Admin} client created on first use. */
    private static final class AdminLookup implements Lookup {
        private final Map<String, Object> adminProperties;
        private final Duration timeout;
        private Admin admin;

        AdminLookup(Map<String, Object> consumerProperties, Duration timeout) {
            Map<String, Object> props = new HashMap<>();
            Set<String> adminKeys = AdminClientConfig.configNames();
            consumerProperties.forEach((key, value) -> {
                if (adminKeys.contains(key)) {
                    props.put(key, value);
                }
            });
            Object clientId = consumerProperties.get(AdminClientConfig.CLIENT_ID_CONFIG);
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, (clientId == null ? "etl" : clientId) + "-topic-ids");
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
            this.adminProperties = props;
            this.timeout = timeout;
        }

        @Override
        public synchronized Map<String, String> describe(Collection<String> topics)
                throws ExecutionException, InterruptedException, TimeoutException {
            if (admin == null) {
                try {
                    admin = Admin.create(adminProperties);
                } catch (KafkaException e) {
                    throw new ExecutionException(e);
                }
            }
            Map<String, TopicDescription> described =
                    admin.describeTopics(topics).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Map<String, String> ids = new HashMap<>();
            described.forEach((topic, description) -> {
                Uuid id = description.topicId();
                if (id != null && !Uuid.ZERO_UUID.equals(id)) {
                    ids.put(topic, id.toString());
                }
            });
            return ids;
        }

        @Override
        public synchronized void close() {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
                admin = null;
            }
        }
    }
}
