package dev.etl.s3;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enumerates the objects of a backfill and writes its work list: one work-topic record per object or
 * split ({@link BackfillFormat#plan}), spread round-robin over the topic's partitions (created with
 * {@code partitions} partitions when missing), with acks from all in-sync replicas. A work list is
 * written once: when the topic already holds records, nothing is written and the result says so (a
 * second list would read every object twice).
 */
public final class BackfillPlanner {
    private static final Logger log = LoggerFactory.getLogger(BackfillPlanner.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** What a plan did. */
    public record Result(
            String workTopic, boolean alreadyPlanned, long existingItems, int objects, int items, long bytes) {
        @Override
        public String toString() {
            return alreadyPlanned
                    ? "work topic " + workTopic + " already holds " + existingItems + " work item(s): not planned again"
                    : "planned " + items + " work item(s) for " + objects + " object(s), " + bytes + " bytes, into "
                            + workTopic;
        }
    }

    private final ObjectStore store;
    private final BackfillFormats formats;
    private final Map<String, Object> kafka;
    private final String workTopic;
    private final int partitions;
    private final short replicationFactor;
    private final String bucket;
    private final String prefix;
    private final List<String> keys;
    private final String format;
    private final long splitBytes;

    private BackfillPlanner(Builder b) {
        this.store = Objects.requireNonNull(b.store, "store");
        this.formats = b.formats != null ? b.formats : BackfillFormats.discover();
        this.kafka = Objects.requireNonNull(b.kafka, "kafka settings");
        this.workTopic = Objects.requireNonNull(b.workTopic, "workTopic");
        this.bucket = Objects.requireNonNull(b.bucket, "bucket");
        this.prefix = b.prefix == null ? "" : b.prefix;
        this.keys = List.copyOf(b.keys);
        this.format = b.format;
        this.partitions = b.partitions;
        this.replicationFactor = b.replicationFactor;
        this.splitBytes = b.splitBytes;
        if (partitions <= 0 || splitBytes <= 0) {
            throw new IllegalArgumentException("partitions and split bytes must be positive");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Lists (or takes the manifest's keys), splits and writes the work list.
     *
     * @throws IOException when object storage fails
     * @throws IllegalStateException when Kafka does, naming the topic
     */
    public Result plan() throws IOException {
        try (Admin admin = Admin.create(KafkaClientSettings.admin(kafka, "backfill-planner"))) {
            Optional<Long> existing = existingRecords(false);
            if (existing.isPresent() && existing.get() > 0) {
                Result r = new Result(workTopic, true, existing.get(), 0, 0, 0);
                log.info("backfill planner: {}", r);
                return r;
            }
            List<ObjectInfo> objects = objects();
            List<WorkItem> items = new ArrayList<>();
            long bytes = 0;
            for (ObjectInfo object : objects) {
                BackfillFormat f = format != null ? formats.named(format) : formats.forKey(object.key());
                try {
                    items.addAll(f.plan(store, object, splitBytes));
                } catch (CorruptSplitException e) {
                    throw new IOException(
                            "cannot plan s3://" + object.bucket() + "/" + object.key() + " as " + f.name() + ": "
                                    + e.getMessage(),
                            e);
                }
                bytes += object.size();
            }
            if (existing.isEmpty()) {
                create(admin);
            }
            if (!write(items)) {
                long now = existingRecords(false).orElse(0L);
                Result r = new Result(workTopic, true, now, 0, 0, 0);
                log.info("backfill planner: another planner wrote the list meanwhile: {}", r);
                return r;
            }
            Result r = new Result(workTopic, false, 0, objects.size(), items.size(), bytes);
            log.info("backfill planner: {} (from {}, s3://{}/{})", r, store.describe(), bucket, prefix);
            return r;
        }
    }

    private List<ObjectInfo> objects() throws IOException {
        if (!keys.isEmpty()) {
            List<ObjectInfo> out = new ArrayList<>();
            for (String key : keys) {
                out.add(store.head(bucket, key));
            }
            return out;
        }
        List<ObjectInfo> listed = new ArrayList<>();
        for (ObjectInfo o : store.list(bucket, prefix)) {
            if (o.key().endsWith("/")
                    || (format == null && formats.findForKey(o.key()).isEmpty())) {
                log.info("backfill planner: skipping s3://{}/{} (no format reads it)", bucket, o.key());
                continue;
            }
            listed.add(o);
        }
        return listed;
    }

    /** Work items in the work topic (committed ones: a list is written in one transaction), or empty when it does not exist. */
    private Optional<Long> existingRecords(boolean waitForOpenTransactions) {
        return WorkListScan.scan(kafka, workTopic, TIMEOUT, waitForOpenTransactions)
                .map(WorkListScan.Extent::items);
    }

    private void create(Admin admin) {
        try {
            NewTopic topic = new NewTopic(
                            workTopic,
                            Optional.of(partitions),
                            replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor))
                    // work items must outlive the backfill: no retention by time or size
                    .configs(Map.of("retention.ms", "-1", "retention.bytes", "-1", "cleanup.policy", "delete"));
            admin.createTopics(List.of(topic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.info("backfill planner: created work topic {} with {} partition(s)", workTopic, partitions);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the work topic " + workTopic + ": " + e.getCause(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot create the work topic " + workTopic + " within " + TIMEOUT, e);
        }
    }

    /**
     * Writes the list in one transaction under the work topic's transactional id: a second planner of the
     * same topic fences the first (whose list then never becomes visible), and a planner that finds a list
     * committed once it holds the id writes nothing. False when another planner's list is there.
     */
    private boolean write(List<WorkItem> items) {
        Map<String, Object> settings = KafkaClientSettings.producer(kafka, "backfill-planner");
        settings.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "etl-backfill-plan-" + workTopic);
        settings.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int)
                Duration.ofMinutes(10).toMillis());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions(); // fences an earlier planner of this work topic still writing
            Optional<Long> meanwhile = existingRecords(true);
            if (meanwhile.isPresent() && meanwhile.get() > 0) {
                return false;
            }
            int n = producer.partitionsFor(workTopic).size();
            producer.beginTransaction();
            for (int i = 0; i < items.size(); i++) {
                WorkItem item = items.get(i);
                producer.send(new ProducerRecord<>(
                        workTopic, i % n, item.key().getBytes(StandardCharsets.UTF_8), item.encode()));
            }
            producer.commitTransaction(); // flushes; fails when a send did, and then nothing is visible
            return true;
        } catch (ProducerFencedException e) {
            throw new IllegalStateException(
                    "another planner of work topic " + workTopic
                            + " started while this one was writing; its list is the one the backfill reads",
                    e);
        } catch (KafkaException e) {
            throw new IllegalStateException(
                    "writing the work list to " + workTopic + " failed (nothing of it is"
                            + " visible: it is written in one transaction): " + e,
                    e);
        }
    }

    /** Builder; store, Kafka settings, work topic and bucket are required. */
    public static final class Builder {
        private ObjectStore store;
        private BackfillFormats formats;
        private Map<String, Object> kafka;
        private String workTopic;
        private int partitions = 8;
        private short replicationFactor = -1;
        private String bucket;
        private String prefix;
        private final List<String> keys = new ArrayList<>();
        private String format;
        private long splitBytes = 64L << 20;

        private Builder() {}

        public Builder store(ObjectStore store) {
            this.store = store;
            return this;
        }

        public Builder formats(@Nullable BackfillFormats formats) {
            this.formats = formats;
            return this;
        }

        /** Kafka client settings (bootstrap servers, security); admin and producer settings are taken from them. */
        public Builder kafka(Map<String, ?> settings) {
            this.kafka = new HashMap<>(settings);
            return this;
        }

        public Builder workTopic(String topic) {
            this.workTopic = topic;
            return this;
        }

        /** Partitions of a work topic the planner creates (default 8): the most lanes that can share the work. */
        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        /** Replication of a work topic the planner creates (default: the broker's). */
        public Builder replicationFactor(short replicationFactor) {
            this.replicationFactor = replicationFactor;
            return this;
        }

        public Builder bucket(String bucket) {
            this.bucket = bucket;
            return this;
        }

        /** Key prefix to list (default: the whole bucket). */
        public Builder prefix(@Nullable String prefix) {
            this.prefix = prefix;
            return this;
        }

        /** An explicit manifest: these keys instead of a listing. */
        public Builder keys(List<String> keys) {
            this.keys.addAll(keys);
            return this;
        }

        /** One format for every object (default: by each key's extension). */
        public Builder format(@Nullable String format) {
            this.format = format;
            return this;
        }

        /** Target split size in bytes (default 64 MiB). */
        public Builder splitBytes(long splitBytes) {
            this.splitBytes = splitBytes;
            return this;
        }

        public BackfillPlanner build() {
            return new BackfillPlanner(this);
        }
    }
}
