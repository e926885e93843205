/** Auto-configuration of the S3 backfill source ({@code etl.s3.*}). Public API. */
@NullMarked
package dev.etl.autoconfigure.s3;

import org.jspecify.annotations.NullMarked;
