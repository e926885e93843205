/**
 * The machine's limits for the end-to-end benchmark, measured by {@code scripts/bench.sh} in the same
 * invocation as the pipelines: {@link dev.etl.bench.limits.ConsumerLimit} (plain {@code KafkaConsumer}s
 * over the benchmark topic, raw and with Avro's stock {@code GenericDatumReader}) and
 * {@link dev.etl.bench.limits.InsertLimit} (pre-built RowBinary bodies POSTed to the shards). Neither
 * is a pipeline: each measures one side alone, so that a pipeline's rate can be stated as a fraction of
 * what the box could do at best, {@code L = N / (N / C + R / I)} for N records making R rows.
 */
package dev.etl.bench.limits;
