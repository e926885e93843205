/** Backfill from object storage: {@code S3BackfillSource}, the work list and planner, the object store and the file formats it reads. Public API. */
@NullMarked
package dev.etl.s3;

import org.jspecify.annotations.NullMarked;
