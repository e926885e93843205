package dev.etl.autoconfigure.datagen;

import dev.etl.autoconfigure.BoundedRunCompletion.WhenDone;
import dev.etl.datagen.DatagenSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of the load-generator source ({@code etl.source.datagen.*}): synthetic records in place
 * of Kafka, from an Avro schema or a {@code RecordGenerator} bean. Any {@code etl.source.datagen.*}
 * setting turns it on (and the Kafka source off). Validated when bound.
 */
@ConfigurationProperties("etl.source.datagen")
public class EtlDatagenProperties implements Validator {

    /**
     * Number of partitions, spread over the lanes (partition p goes to lane p % etl.pipeline.threads).
     */
    private int partitions = 8;

    /**
     * Records of a bounded run, over all partitions. Unset: the run never ends.
     */
    private Long records;

    /**
     * Records per second over all partitions, on a schedule that keeps running while the pipeline is
     * slow or paused (what is due and not yet generated is etl_source_lag_records). Unset or 0: as fast
     * as the pipeline takes them.
     */
    private Long rate;

    /**
     * Seed of every record's random numbers: the same seed gives the same records.
     */
    private long seed;

    /**
     * Topic name of the generated partitions (chain routing by topic, partition names, the lag
     * gauge's topic tag).
     */
    private String topic = DatagenSource.DEFAULT_TOPIC;

    /**
     * Most records per partition in one poll.
     */
    private int maxPollRecords = DatagenSource.DEFAULT_MAX_POLL_RECORDS;

    /**
     * Location of an Avro schema (.avsc) to generate random records of, e.g.
     * "classpath:order.avsc". Exclusive with "generator".
     */
    private Resource schema;

    /**
     * Name of the RecordGenerator bean that writes each record. Exclusive with "schema"; without
     * either, the application's only RecordGenerator bean.
     */
    private String generator;

    /**
     * How Avro values are framed: "raw" (the body alone), "confluent" (magic byte, schema id, body) or
     * "single-object". Unset: confluent when a SchemaRegistryClient bean exists (the schema is
     * registered under "subject"), else raw.
     */
    private Encoding encoding;

    /**
     * Schema id written into Confluent-framed values instead of registering the schema.
     */
    private Integer schemaId;

    /**
     * Registry subject the schema is registered under for the Confluent framing. Defaults to
     * "<topic>-value".
     */
    private String subject;

    /**
     * Key of Avro-generated records: "id" (the record's unique id, 8 bytes big-endian) or "none".
     */
    private KeyKind key = KeyKind.ID;

    /**
     * What happens when a bounded run is done (every record written and committed): "exit" stops the
     * pipeline, closes the application context and ends the JVM with the run's exit code (0 when
     * clean); "close" does the same without System.exit; "keep-running" leaves the idle pipeline running.
     */
    private WhenDone whenDone = WhenDone.EXIT;

    public int getPartitions() {
        return this.partitions;
    }

    public void setPartitions(int partitions) {
        this.partitions = partitions;
    }

    public @Nullable Long getRecords() {
        return this.records;
    }

    public void setRecords(@Nullable Long records) {
        this.records = records;
    }

    public @Nullable Long getRate() {
        return this.rate;
    }

    public void setRate(@Nullable Long rate) {
        this.rate = rate;
    }

    public long getSeed() {
        return this.seed;
    }

    public void setSeed(long seed) {
        this.seed = seed;
    }

    public String getTopic() {
        return this.topic;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public int getMaxPollRecords() {
        return this.maxPollRecords;
    }

    public void setMaxPollRecords(int maxPollRecords) {
        this.maxPollRecords = maxPollRecords;
    }

    public @Nullable Resource getSchema() {
        return this.schema;
    }

    public void setSchema(@Nullable Resource schema) {
        this.schema = schema;
    }

    public @Nullable String getGenerator() {
        return this.generator;
    }

    public void setGenerator(@Nullable String generator) {
        this.generator = generator;
    }

    public @Nullable Encoding getEncoding() {
        return this.encoding;
    }

    public void setEncoding(@Nullable Encoding encoding) {
        this.encoding = encoding;
    }

    public @Nullable Integer getSchemaId() {
        return this.schemaId;
    }

    public void setSchemaId(@Nullable Integer schemaId) {
        this.schemaId = schemaId;
    }

    public @Nullable String getSubject() {
        return this.subject;
    }

    public void setSubject(@Nullable String subject) {
        this.subject = subject;
    }

    public KeyKind getKey() {
        return this.key;
    }

    public void setKey(KeyKind key) {
        this.key = key;
    }

    public WhenDone getWhenDone() {
        return this.whenDone;
    }

    public void setWhenDone(WhenDone whenDone) {
        this.whenDone = whenDone;
    }

    @Override
    public boolean supports(Class<?> clazz) {
        return EtlDatagenProperties.class.isAssignableFrom(clazz);
    }

    @Override
    public void validate(Object target, Errors errors) {
        EtlDatagenProperties p = (EtlDatagenProperties) target;
        if (p.getPartitions() < 1) {
            errors.rejectValue(
                    "partitions",
                    "etl.invalid",
                    "etl.source.datagen.partitions must be >= 1, got " + p.getPartitions());
        }
        if (p.getRecords() != null && p.getRecords() < 1) {
            errors.rejectValue(
                    "records",
                    "etl.invalid",
                    "etl.source.datagen.records must be >= 1 (remove it for an " + "unbounded run), got "
                            + p.getRecords());
        }
        if (p.getRate() != null && (p.getRate() < 0 || p.getRate() > 1_000_000_000L)) {
            errors.rejectValue(
                    "rate",
                    "etl.invalid",
                    "etl.source.datagen.rate must be in [0, 1000000000] records/s " + "(0: unlimited), got "
                            + p.getRate());
        }
        if (p.getMaxPollRecords() < 1) {
            errors.rejectValue(
                    "maxPollRecords",
                    "etl.invalid",
                    "etl.source.datagen.max-poll-records must be >= 1, got " + p.getMaxPollRecords());
        }
        if (p.getTopic() == null || p.getTopic().isBlank()) {
            errors.rejectValue("topic", "etl.invalid", "etl.source.datagen.topic must not be blank");
        }
        if (p.getSchema() != null && p.getGenerator() != null) {
            errors.rejectValue(
                    "generator",
                    "etl.invalid",
                    "etl.source.datagen.schema and etl.source.datagen.generator "
                            + "are exclusive: generate from an Avro schema or with a RecordGenerator bean, not both");
        }
        if (p.getSchema() == null && (p.getEncoding() != null || p.getSchemaId() != null || p.getSubject() != null)) {
            errors.rejectValue(
                    "encoding",
                    "etl.invalid",
                    "etl.source.datagen.encoding, schema-id and subject apply to "
                            + "records generated from etl.source.datagen.schema, which is not set");
        }
        if (p.getSchemaId() != null && p.getEncoding() != null && p.getEncoding() != Encoding.CONFLUENT) {
            errors.rejectValue(
                    "schemaId",
                    "etl.invalid",
                    "etl.source.datagen.schema-id is only written by the "
                            + "confluent encoding, but etl.source.datagen.encoding is "
                            + p.getEncoding().value());
        }
    }

    /** How Avro values are framed. */
    public enum Encoding {

        /** The Avro binary body alone. */
        RAW,

        /** Magic byte 0, the 4-byte big-endian schema id, the body. */
        CONFLUENT,

        /** Avro's single-object encoding: C3 01, the schema's fingerprint, the body. */
        SINGLE_OBJECT;

        String value() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** Key of Avro-generated records. */
    public enum KeyKind {

        /** The record's id, 8 bytes big-endian. */
        ID,

        /** No key. */
        NONE
    }
}
