/**
 * The source SPI: a {@link dev.etl.source.Source} opens one {@link dev.etl.source.SourceLane} per lane thread, which polls {@link dev.etl.source.PartitionBatch}es, reports assignment changes to a {@link dev.etl.source.PartitionListener} and commits {@link dev.etl.source.CommitOffsets}. Public API; connectors (Kafka, datagen, the S3 backfill, memory) implement it, all but Kafka on {@link dev.etl.source.AbstractSourceLane}.
 */
@NullMarked
package dev.etl.source;

import org.jspecify.annotations.NullMarked;
