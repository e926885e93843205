package dev.etl.s3;

/**
 * An object as listed or heads up: its key, size and ETag.
 *
 * @param bucket the bucket
 * @param key    the key
 * @param size   the size in bytes
 * @param etag   the ETag (quotes removed), or empty when the store gave none
 */
public record ObjectInfo(String bucket, String key, long size, String etag) {}
