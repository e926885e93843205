package dev.etl.kafka;

/**
 * A Kafka source (or dead-letter producer) setting was refused: it is missing, malformed, or would break the at-least-once
 * guarantee. The message names the key and says why; {@link #key()} gives the key alone.
 */
public final class KafkaConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String key;

    KafkaConfigException(String key, String reason) {
        this("source", key, reason);
    }

    /** {@code client} names the refusing client in the message, e.g. {@code dead-letter producer}. */
    KafkaConfigException(String client, String key, String reason) {
        super("Kafka " + client + " setting '" + key + "' refused: " + reason);
        this.key = key;
    }

    /** The offending setting, e.g. {@code enable.auto.commit}. */
    public String key() {
        return key;
    }
}
