/** Parquet files for the S3 backfill source: {@code ParquetFormat}. Public API. */
@NullMarked
package dev.etl.s3.parquet;

import org.jspecify.annotations.NullMarked;
