/**
 * The source SPI: a {@link dev.etl.source.Source} opens one {@link dev.etl.source.SourceLane} per lane thread, which polls {@link dev.etl.source.PartitionBatch}es, reports assignment changes to a {@link dev.etl.source.PartitionListener} and commits {@link dev.etl.source.CommitOffsets}. Public API; connectors (Kafka, memory) implement it.
 */
package dev.etl.source;
