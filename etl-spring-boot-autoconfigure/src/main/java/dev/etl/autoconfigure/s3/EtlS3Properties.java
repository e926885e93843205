package dev.etl.autoconfigure.s3;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the backfill source ({@code etl.source.s3.*}): objects of an S3-compatible store read
 * through the same chains and sinks, the work list a Kafka topic shared by the instances' consumer group.
 * Any {@code etl.source.s3.*} setting turns it on (and the Kafka source off). Validated when bound.
 */
@ConfigurationProperties("etl.source.s3")
public class EtlS3Properties implements Validator {

    /** What this run of the application does with the backfill. */
    public enum Mode {

        /** Read the work list already in the work topic (written by a run in mode plan or plan-and-run). */
        RUN,

        /** Write the work list (list and split the objects) and exit; the pipeline does not start. */
        PLAN,

        /** Write the work list when the work topic is empty, then read it. */
        PLAN_AND_RUN
    }

    /** What happens once the group has committed the whole work list. */
    public enum WhenDone {

        /** Stop the pipeline, close the context, end the JVM with the run's exit code. */
        EXIT,

        /** Stop the pipeline and close the context. */
        CLOSE,

        /** Leave the idle pipeline running. */
        KEEP_RUNNING
    }

    /** What happens to the rest of a work item whose data cannot be read past some point. */
    public enum OnCorrupt {

        /** Fail the pipeline, naming the object and the position (the item replays after a restart). */
        FAIL,

        /** Give up the rest of the item: counted, logged, committed (bounded by max-corrupt-ratio). */
        SKIP
    }

    /** Bucket to read. Required. */
    private String bucket;

    /** Key prefix to list; empty: the whole bucket. Objects no format reads by extension are skipped. */
    private String prefix = "";

    /** An explicit manifest: these keys instead of a listing of the prefix. */
    private List<String> keys = new ArrayList<>();

    /** Format of every object (avro, ndjson, parquet); unset: by each key's extension. */
    private String format;

    /** Endpoint of an S3-compatible store (e.g. http://127.0.0.1:19300); unset: AWS S3 of the region. */
    private URI endpoint;

    /** Region; unset: the AWS SDK's region chain (us-east-1 with an explicit endpoint). */
    private String region;

    /** Path-style requests (http://host/bucket/key), as most S3-compatible stores need. */
    private boolean pathStyle;

    /** Access key id; unset: the AWS SDK's default credentials chain (environment, profile, instance role). */
    private String accessKey;

    /** Secret access key, with access-key. Never logged. */
    private String secretKey;

    /** Kafka topic holding the work list (one record per object or split); default: "<pipeline>-backfill-work". */
    private String workTopic;

    /** Partitions of a work topic the planner creates: the most lanes (over all instances) that share the work. */
    private int workTopicPartitions = 8;

    /** Consumer group of the backfill's instances; default: "<pipeline>-backfill". */
    private String groupId;

    /**
     * Topic name the backfill's rows report, which routes them to the chain of that topic; default: the
     * only etl.source.kafka.topics entry when there is exactly one, else the work topic.
     */
    private String topic;

    /** What this run does: run (read the work list), plan (write it and exit) or plan-and-run. */
    private Mode mode = Mode.RUN;

    /** Target size of a split: Avro and plain NDJSON objects larger than this are read as several work items. */
    private DataSize splitSize = DataSize.ofMegabytes(64);

    /** Rows read ahead per work-topic partition being read (memory per reader thread). */
    private DataSize readAhead = DataSize.ofMegabytes(4);

    /** Size of one read-ahead segment (rows handed to the lane at a time). */
    private DataSize segmentSize = DataSize.ofMegabytes(1);

    /** Rows per batch handed to the chain, at most. */
    private int maxBatchRows = 5000;

    /** Work items fetched ahead per partition: the next item's read starts while one is in the chain. */
    private int prefetchItems = 2;

    /** Attempts per work item on object-storage failures before the pipeline fails. */
    private int readAttempts = 5;

    /** What happens to the rest of a work item whose data is corrupt: fail or skip. */
    private OnCorrupt onCorrupt = OnCorrupt.FAIL;

    /** With on-corrupt=skip: the pipeline fails when more than this share of the items read were corrupt (at least 10 read). */
    private double maxCorruptRatio = 0.1;

    /** What happens once the whole work list is committed: exit, close or keep-running. */
    private WhenDone whenDone = WhenDone.EXIT;

    /** How often progress is logged and the end of the run checked. */
    private java.time.Duration progressInterval = java.time.Duration.ofSeconds(10);

    public String getBucket() {
        return this.bucket;
    }

    public void setBucket(String bucket) {
        this.bucket = bucket;
    }

    public String getPrefix() {
        return this.prefix;
    }

    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    public List<String> getKeys() {
        return this.keys;
    }

    public void setKeys(List<String> keys) {
        this.keys = keys;
    }

    public String getFormat() {
        return this.format;
    }

    public void setFormat(String format) {
        this.format = format;
    }

    public URI getEndpoint() {
        return this.endpoint;
    }

    public void setEndpoint(URI endpoint) {
        this.endpoint = endpoint;
    }

    public String getRegion() {
        return this.region;
    }

    public void setRegion(String region) {
        this.region = region;
    }

    public boolean isPathStyle() {
        return this.pathStyle;
    }

    public void setPathStyle(boolean pathStyle) {
        this.pathStyle = pathStyle;
    }

    public String getAccessKey() {
        return this.accessKey;
    }

    public void setAccessKey(String accessKey) {
        this.accessKey = accessKey;
    }

    public String getSecretKey() {
        return this.secretKey;
    }

    public void setSecretKey(String secretKey) {
        this.secretKey = secretKey;
    }

    public String getWorkTopic() {
        return this.workTopic;
    }

    public void setWorkTopic(String workTopic) {
        this.workTopic = workTopic;
    }

    public int getWorkTopicPartitions() {
        return this.workTopicPartitions;
    }

    public void setWorkTopicPartitions(int workTopicPartitions) {
        this.workTopicPartitions = workTopicPartitions;
    }

    public String getGroupId() {
        return this.groupId;
    }

    public void setGroupId(String groupId) {
        this.groupId = groupId;
    }

    public String getTopic() {
        return this.topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public Mode getMode() {
        return this.mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public DataSize getSplitSize() {
        return this.splitSize;
    }

    public void setSplitSize(DataSize splitSize) {
        this.splitSize = splitSize;
    }

    public DataSize getReadAhead() {
        return this.readAhead;
    }

    public void setReadAhead(DataSize readAhead) {
        this.readAhead = readAhead;
    }

    public DataSize getSegmentSize() {
        return this.segmentSize;
    }

    public void setSegmentSize(DataSize segmentSize) {
        this.segmentSize = segmentSize;
    }

    public int getMaxBatchRows() {
        return this.maxBatchRows;
    }

    public void setMaxBatchRows(int maxBatchRows) {
        this.maxBatchRows = maxBatchRows;
    }

    public int getPrefetchItems() {
        return this.prefetchItems;
    }

    public void setPrefetchItems(int prefetchItems) {
        this.prefetchItems = prefetchItems;
    }

    public int getReadAttempts() {
        return this.readAttempts;
    }

    public void setReadAttempts(int readAttempts) {
        this.readAttempts = readAttempts;
    }

    public OnCorrupt getOnCorrupt() {
        return this.onCorrupt;
    }

    public void setOnCorrupt(OnCorrupt onCorrupt) {
        this.onCorrupt = onCorrupt;
    }

    public double getMaxCorruptRatio() {
        return this.maxCorruptRatio;
    }

    public void setMaxCorruptRatio(double maxCorruptRatio) {
        this.maxCorruptRatio = maxCorruptRatio;
    }

    public WhenDone getWhenDone() {
        return this.whenDone;
    }

    public void setWhenDone(WhenDone whenDone) {
        this.whenDone = whenDone;
    }

    public java.time.Duration getProgressInterval() {
        return this.progressInterval;
    }

    public void setProgressInterval(java.time.Duration progressInterval) {
        this.progressInterval = progressInterval;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlS3Properties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlS3Properties s3 = (EtlS3Properties) target;
        if (!StringUtils.hasText(s3.getBucket())) {
            errors.rejectValue("bucket", "required", "etl.source.s3.bucket is required for a backfill");
        }
        if (StringUtils.hasText(s3.getAccessKey()) != StringUtils.hasText(s3.getSecretKey())) {
            errors.rejectValue(
                    "secretKey",
                    "pair",
                    "etl.source.s3.access-key and etl.source.s3.secret-key go together: set both, or neither for the"
                            + " AWS SDK's default credentials chain");
        }
        if (s3.getKeys() != null && !s3.getKeys().isEmpty() && StringUtils.hasText(s3.getPrefix())) {
            errors.rejectValue("keys", "exclusive", "etl.source.s3.keys and etl.source.s3.prefix are exclusive");
        }
        if (s3.getSegmentSize().toBytes() <= 0 || s3.getSegmentSize().toBytes() > Integer.MAX_VALUE / 2) {
            errors.rejectValue("segmentSize", "range", "etl.source.s3.segment-size must be between 1 B and 1 GiB");
        } else if (s3.getReadAhead().toBytes() < s3.getSegmentSize().toBytes()) {
            errors.rejectValue(
                    "readAhead", "range", "etl.source.s3.read-ahead must be at least etl.source.s3.segment-size");
        }
        if (s3.getSplitSize().toBytes() <= 0) {
            errors.rejectValue("splitSize", "range", "etl.source.s3.split-size must be positive");
        }
        if (s3.getWorkTopicPartitions() <= 0
                || s3.getMaxBatchRows() <= 0
                || s3.getPrefetchItems() <= 0
                || s3.getReadAttempts() <= 0) {
            errors.reject(
                    "range",
                    "etl.source.s3.work-topic-partitions, max-batch-rows, prefetch-items and"
                            + " read-attempts must be positive");
        }
        if (!(s3.getMaxCorruptRatio() >= 0 && s3.getMaxCorruptRatio() <= 1)) {
            errors.rejectValue("maxCorruptRatio", "range", "etl.source.s3.max-corrupt-ratio must be in [0, 1]");
        }
    }

    /** Secret-free summary for logs. */
    @Override
    public String toString() {
        return "s3://" + this.bucket + "/" + this.prefix + " endpoint="
                + (this.endpoint == null ? "aws" : this.endpoint) + " mode=" + this.mode;
    }
}
