package dev.etl.autoconfigure.s3;

import dev.etl.autoconfigure.BoundedRunCompletion.WhenDone;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
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

    /** What happens to the rest of a work item whose data cannot be read past some point. */
    public enum OnCorrupt {

        /** Fail the pipeline, naming the object and the position (the item replays after a restart). */
        FAIL,

        /** Give up the rest of the item: counted, logged, committed (bounded by max-corrupt-ratio). */
        SKIP
    }

    /** Bucket holding the objects to backfill. Required. */
    private String bucket;

    /**
     * Key prefix to list (e.g. "orders/2025/"). Unset: the whole bucket. Listed objects that no format
     * reads by their extension are skipped (and logged). Exclusive with "keys".
     */
    private String prefix;

    /** Explicit list of object keys to read instead of a listing (a manifest). Exclusive with "prefix". */
    private List<String> keys = new ArrayList<>();

    /**
     * Format of every object: "avro", "ndjson" or "parquet" (with etl-s3-parquet). Unset: by each key's
     * extension (.avro; .ndjson, .jsonl, .json, optionally .gz or .zst; .parquet).
     */
    private String format;

    /** Endpoint URL of an S3-compatible store (e.g. http://127.0.0.1:19300). Unset: AWS S3 of the region. */
    private URI endpoint;

    /** Region requests are signed for. Unset: the AWS SDK's region chain, or us-east-1 with an endpoint. */
    private String region;

    /**
     * Whether to address buckets path-style (http://host/bucket/key) instead of as a host name, as most
     * S3-compatible stores need.
     */
    private boolean pathStyle;

    /**
     * Access key id of static credentials, with "secret-key". Unset: the AWS SDK's default credentials
     * chain (environment, profile, container or instance role).
     */
    private String accessKey;

    /** Secret access key that goes with "access-key". Never logged, masked by Actuator. */
    private String secretKey;

    /**
     * Kafka topic holding the work list, one record per object or split. Default: "<pipeline
     * name>-backfill-work". A new work topic means a new list: use one to backfill the same objects again.
     */
    private String workTopic;

    /**
     * Partitions of the work topic when the plan creates it: the most lanes, over all instances, that read
     * at once.
     */
    private int workTopicPartitions = 8;

    /** Consumer group the backfill's instances share the work list in. Default: "<pipeline name>-backfill". */
    private String groupId;

    /**
     * Topic the backfilled rows report, which routes them to that topic's chain. Default: the only entry of
     * etl.source.kafka.topics when there is exactly one, else the work topic.
     */
    private String topic;

    /**
     * What this run of the application does: "run" reads the work list; "plan" writes it and exits (the
     * pipeline and the web server do not start); "plan-and-run" writes it when the work topic is empty,
     * then reads it.
     */
    private Mode mode = Mode.RUN;

    /**
     * Target size of a split: Avro and plain NDJSON objects larger than this are read as several work items
     * (compressed NDJSON is always one).
     */
    private DataSize splitSize = DataSize.ofMegabytes(64);

    /**
     * Bytes of rows read ahead per work-topic partition being read (with one more segment: the memory of
     * a reader thread). At least "segment-size".
     */
    private DataSize readAhead = DataSize.ofMegabytes(4);

    /** Size of one read-ahead segment: the rows handed to a lane at a time. */
    private DataSize segmentSize = DataSize.ofMegabytes(1);

    /** Most rows handed to the chain in one batch. */
    private int maxBatchRows = 5000;

    /** Work items fetched ahead per work-topic partition, so the next item's read starts while one is in the chain. */
    private int prefetchItems = 2;

    /**
     * Attempts to read a work item when object storage fails (5xx, timeouts, resets), with backoff; then
     * the pipeline fails.
     */
    private int readAttempts = 5;

    /**
     * What happens to the rest of a work item whose data cannot be read past some point (a bad Avro block,
     * a corrupt gzip or zstd stream): "fail" the pipeline, or "skip" it (counted, logged, committed).
     */
    private OnCorrupt onCorrupt = OnCorrupt.FAIL;

    /**
     * With on-corrupt=skip, the largest share of corrupt work items (once at least 10 were read) before the
     * pipeline fails, so a wrong prefix or format cannot pass as a backfill of nothing.
     */
    private double maxCorruptRatio = 0.1;

    /**
     * What happens once the group has committed the whole work list: "exit" closes the application and
     * ends the JVM with the run's exit code, "close" only closes it, "keep-running" leaves it idle.
     */
    private WhenDone whenDone = WhenDone.EXIT;

    /** How often the progress line is logged and the end of the run checked. */
    private Duration progressInterval = Duration.ofSeconds(10);

    public @Nullable String getBucket() {
        return this.bucket;
    }

    public void setBucket(@Nullable String bucket) {
        this.bucket = bucket;
    }

    public @Nullable String getPrefix() {
        return this.prefix;
    }

    public void setPrefix(@Nullable String prefix) {
        this.prefix = prefix;
    }

    public List<String> getKeys() {
        return this.keys;
    }

    public void setKeys(List<String> keys) {
        this.keys = keys;
    }

    public @Nullable String getFormat() {
        return this.format;
    }

    public void setFormat(@Nullable String format) {
        this.format = format;
    }

    public @Nullable URI getEndpoint() {
        return this.endpoint;
    }

    public void setEndpoint(@Nullable URI endpoint) {
        this.endpoint = endpoint;
    }

    public @Nullable String getRegion() {
        return this.region;
    }

    public void setRegion(@Nullable String region) {
        this.region = region;
    }

    public boolean isPathStyle() {
        return this.pathStyle;
    }

    public void setPathStyle(boolean pathStyle) {
        this.pathStyle = pathStyle;
    }

    public @Nullable String getAccessKey() {
        return this.accessKey;
    }

    public void setAccessKey(@Nullable String accessKey) {
        this.accessKey = accessKey;
    }

    public @Nullable String getSecretKey() {
        return this.secretKey;
    }

    public void setSecretKey(@Nullable String secretKey) {
        this.secretKey = secretKey;
    }

    public @Nullable String getWorkTopic() {
        return this.workTopic;
    }

    public void setWorkTopic(@Nullable String workTopic) {
        this.workTopic = workTopic;
    }

    public int getWorkTopicPartitions() {
        return this.workTopicPartitions;
    }

    public void setWorkTopicPartitions(int workTopicPartitions) {
        this.workTopicPartitions = workTopicPartitions;
    }

    public @Nullable String getGroupId() {
        return this.groupId;
    }

    public void setGroupId(@Nullable String groupId) {
        this.groupId = groupId;
    }

    public @Nullable String getTopic() {
        return this.topic;
    }

    public void setTopic(@Nullable String topic) {
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

    public Duration getProgressInterval() {
        return this.progressInterval;
    }

    public void setProgressInterval(Duration progressInterval) {
        this.progressInterval = progressInterval;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlS3Properties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlS3PropertiesValidation.validate((EtlS3Properties) target, errors);
    }

    /** Secret-free summary for logs. */
    @Override
    public String toString() {
        return "s3://" + this.bucket + "/" + ((this.prefix != null) ? this.prefix : "") + " endpoint="
                + (this.endpoint == null ? "aws" : this.endpoint) + " mode=" + this.mode;
    }
}
