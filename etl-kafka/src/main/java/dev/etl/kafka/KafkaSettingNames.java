package dev.etl.kafka;

import dev.etl.error.Suggestion;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the names of the Kafka client settings a user passes through ({@code spring.kafka.*},
 * {@code etl.source.kafka.properties.*}, {@code etl.errors.dead-letter.properties.*}) against the
 * client's own list ({@code ConsumerConfig.configNames()}, {@code ProducerConfig.configNames()}).
 *
 * <p>The Kafka client only logs unknown names ("supplied but isn't a known config") and ignores them,
 * so a typo such as {@code max.poll.recods} silently keeps the default. A name that is not a known
 * setting but is within two edits of one is refused, naming the closest; any other unknown name is
 * passed through with one WARN, because interceptors, metrics reporters, config providers and login
 * callbacks legitimately read settings of their own (keys with upper-case letters, such as the class
 * name under which Spring hands its SSL bundle to the engine factory, are passed silently).
 */
final class KafkaSettingNames {
    private static final Logger log = LoggerFactory.getLogger(KafkaSettingNames.class);
    /** At most this many edits from a known name, an unknown name is taken for a typo of it. */
    static final int TYPO_DISTANCE = 2;

    private KafkaSettingNames() {}

    /**
     * @throws KafkaConfigException for a name that looks like a typo of a known setting
     */
    static void check(Map<String, ?> settings, Set<String> known, String client) {
        for (String name : settings.keySet()) {
            if (known.contains(name)) {
                continue;
            }
            if (!name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
                // Kafka's names are lower case; a class name as key (Spring's SSL bundle for its engine
                // factory, a plug-in's own object) is handed to a plug-in, not mistyped.
                continue;
            }
            String closest = Suggestion.closest(name, known);
            if (closest != null && Suggestion.distance(name, closest) <= TYPO_DISTANCE) {
                throw new KafkaConfigException(
                        client,
                        name,
                        "it is not a Kafka " + client + " setting; did you mean '"
                                + closest
                                + "'? (an unknown setting is ignored by the client, so a typo would silently keep "
                                + "the default)");
            }
            log.warn(
                    "Kafka {} setting '{}' is not a setting of the Kafka client; passed through for plug-ins "
                            + "(interceptors, reporters, config providers) that may read it",
                    client,
                    name);
        }
    }
}
