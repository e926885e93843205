package dev.etl.autoconfigure;

import dev.etl.sink.SinkDefinition;
import java.util.Objects;

/**
 * The pipeline's dead-letter sink, as a bean: {@link EtlAutoConfiguration} registers it with
 * {@code Pipeline.Builder.deadLetter}. A type of its own (rather than a {@link SinkDefinition} bean)
 * so that it is never mistaken for one of the pipeline's ordinary sinks, which are every
 * {@code SinkDefinition} bean. {@code dev.etl.autoconfigure.kafka.KafkaDeadLetterAutoConfiguration}
 * creates one from {@code etl.errors.dead-letter.*}; define your own to dead-letter elsewhere.
 *
 * @param definition a one-shard sink whose writer decodes {@link dev.etl.sink.DeadLetterEncoder} framing
 */
public record DeadLetterSinkDefinition(SinkDefinition definition) {

    public DeadLetterSinkDefinition {
        Objects.requireNonNull(definition, "definition");
    }
}
