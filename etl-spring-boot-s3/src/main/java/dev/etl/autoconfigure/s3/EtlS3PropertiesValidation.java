package dev.etl.autoconfigure.s3;

import org.springframework.util.StringUtils;
import org.springframework.validation.Errors;

/** The checks of {@link EtlS3Properties} when bound: each error names the property and what to do. */
final class EtlS3PropertiesValidation {

    private EtlS3PropertiesValidation() {}

    static void validate(EtlS3Properties s3, Errors errors) {
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
                    "readAhead",
                    "range",
                    "etl.source.s3.read-ahead must be at least etl.source.s3.segment-size (" + s3.getSegmentSize()
                            + "), is " + s3.getReadAhead());
        }
        if (s3.getSplitSize().toBytes() <= 0) {
            errors.rejectValue("splitSize", "range", "etl.source.s3.split-size must be positive");
        }
        positive(errors, "workTopicPartitions", "work-topic-partitions", s3.getWorkTopicPartitions());
        positive(errors, "maxBatchRows", "max-batch-rows", s3.getMaxBatchRows());
        positive(errors, "prefetchItems", "prefetch-items", s3.getPrefetchItems());
        positive(errors, "readAttempts", "read-attempts", s3.getReadAttempts());
        if (!(s3.getMaxCorruptRatio() >= 0 && s3.getMaxCorruptRatio() <= 1)) {
            errors.rejectValue(
                    "maxCorruptRatio",
                    "range",
                    "etl.source.s3.max-corrupt-ratio must be in [0, 1], is " + s3.getMaxCorruptRatio());
        }
        if (s3.getProgressInterval() == null
                || s3.getProgressInterval().isNegative()
                || s3.getProgressInterval().isZero()) {
            errors.rejectValue("progressInterval", "range", "etl.source.s3.progress-interval must be positive");
        }
    }

    private static void positive(Errors errors, String field, String property, int value) {
        if (value <= 0) {
            errors.rejectValue(field, "range", "etl.source.s3." + property + " must be positive, is " + value);
        }
    }
}
