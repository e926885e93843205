package dev.etl.autoconfigure;

import dev.etl.error.Suggestion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Refuses {@code etl.*} names that bind to nothing. The valid names are derived from the structure of
 * {@link EtlProperties} and of each connector's properties class under its prefix (JavaBean properties,
 * nested classes, lists, maps), so a property added there is accepted without touching this class; a
 * name under the prefix of a connector that is not on the class path fails saying which artifact is
 * missing. Names are compared the way Boot's relaxed binding does
 * (kebab-case, camelCase, underscores and case are equivalent; {@code ETL_PIPELINE_THREADS} is
 * {@code etl.pipeline.threads}). Maps with free keys ({@code properties}, {@code settings}, {@code tags},
 * {@code etl.errors.stages}) accept any key under them, and maps of groups
 * ({@code etl.sink.clickhouse.tables.<name>.*}) any key followed by the group's properties; enum-keyed maps ({@code etl.errors.types}) only
 * the enum's values. Stage names are checked by the engine against the assembled chains.
 *
 * <p>Environment variables and JVM system properties are namespaces shared with unrelated tools
 * (Kubernetes adds {@code ETL_SERVICE_PORT} for a service named "etl"; test harnesses set their own
 * {@code -Detl.*} flags), so an unknown name from them fails startup only when it is a near miss of a
 * valid name (edit distance {@value #SHARED_TYPO_DISTANCE} or less); otherwise it is logged at WARN. One
 * that a configuration file reads as a placeholder ({@code threads: ${ETL_THREADS:2}}, as the sample
 * does) is the application's own variable, used where it says: neither.
 */
final class EtlPropertyNames {

    static final int SHARED_TYPO_DISTANCE = 2;

    private static final Log logger = LogFactory.getLog(EtlPropertyNames.class);

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("etl");
    /** The name in {@code ${NAME}} or {@code ${NAME:default}}. */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)");

    /**
     * The properties classes of the connectors, each bound under its prefix by its auto-configuration,
     * with the connector class it needs (absent: its names are reported as such, not as typos).
     */
    private static final List<Connector> CONNECTORS = List.of(
            new Connector(
                    "source.kafka",
                    "dev.etl.autoconfigure.kafka.EtlKafkaProperties",
                    "dev.etl.kafka.KafkaSource",
                    "etl-kafka"),
            new Connector(
                    "errors.dead-letter",
                    "dev.etl.autoconfigure.kafka.EtlDeadLetterProperties",
                    "dev.etl.kafka.KafkaDeadLetterWriter",
                    "etl-kafka"),
            new Connector(
                    "avro",
                    "dev.etl.autoconfigure.avro.EtlAvroProperties",
                    "dev.etl.avro.AvroDeserializer",
                    "etl-avro"),
            new Connector(
                    "json",
                    "dev.etl.autoconfigure.json.EtlJsonProperties",
                    "dev.etl.json.JsonDeserializer",
                    "etl-json"),
            new Connector(
                    "sink.clickhouse",
                    "dev.etl.autoconfigure.clickhouse.EtlClickHouseProperties",
                    "dev.etl.clickhouse.ClickHouseSink",
                    "etl-clickhouse"),
            new Connector(
                    "source.datagen",
                    "dev.etl.autoconfigure.datagen.EtlDatagenProperties",
                    "dev.etl.datagen.DatagenSource",
                    "etl-datagen"),
            new Connector(
                    "source.s3", "dev.etl.autoconfigure.s3.EtlS3Properties", "dev.etl.s3.S3BackfillSource", "etl-s3"));

    private record Connector(String path, String propertiesClass, String requiredClass, String artifact) {

        boolean present(ClassLoader loader) {
            return ClassUtils.isPresent(this.requiredClass, loader)
                    && ClassUtils.isPresent(this.propertiesClass, loader);
        }
    }

    /**
     * {@link EtlProperties} with each connector's properties grafted under its prefix, for the
     * connectors {@code loader} (the application's) can load.
     */
    private static EtlPropertyNode schema(ClassLoader loader) {
        EtlPropertyNode root = EtlPropertyNode.bean(EtlProperties.class, 0);
        for (Connector connector : CONNECTORS) {
            if (connector.present(loader)) {
                root.graft(
                        connector.path().split("\\."),
                        EtlPropertyNode.bean(ClassUtils.resolveClassName(connector.propertiesClass(), loader), 2));
            }
        }
        return root;
    }

    /** The connector whose prefix {@code name} is under, when that connector is not on the class path. */
    private static Connector missingConnector(ConfigurationPropertyName name, ClassLoader loader) {
        for (Connector connector : CONNECTORS) {
            ConfigurationPropertyName prefix = ConfigurationPropertyName.of("etl." + connector.path());
            if ((prefix.isAncestorOf(name) || prefix.equals(name)) && !connector.present(loader)) {
                return connector;
            }
        }
        return null;
    }

    private EtlPropertyNames() {}

    /**
     * Checks every {@code etl.*} name of the environment's enumerable property sources.
     *
     * @throws InvalidEtlConfigurationException naming each unknown property, where it was set and the
     *         closest valid name
     */
    static void check(Environment environment) {
        check(environment, EtlPropertyNames.class.getClassLoader());
    }

    /** As {@link #check(Environment)}, with the connectors the application's {@code loader} can load. */
    static void check(Environment environment, ClassLoader loader) {
        EtlPropertyNode schema = schema(loader);
        Map<String, String> failures = new TreeMap<>();
        Map<String, String> warnings = new TreeMap<>();
        Set<String> placeholders = placeholderNames(environment);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            boolean environmentVariables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
            boolean shared = environmentVariables
                    || (source.getUnderlyingSource() instanceof PropertySource<?> ps
                            && StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(ps.getName()));
            iterable.stream().filter(ROOT::isAncestorOf).forEach((name) -> {
                if (schema.accepts(name, 1)
                        || (shared && placeholders.contains(sourceName(source.getConfigurationProperty(name))))) {
                    return;
                }
                String display = name.toString();
                if (failures.containsKey(display) || warnings.containsKey(display)) {
                    return;
                }
                Connector missing = missingConnector(name, loader);
                if (missing != null) {
                    failures.put(
                            display,
                            display + origin(source.getConfigurationProperty(name)) + ": configures "
                                    + "etl." + missing.path() + ", but " + missing.artifact()
                                    + " is not on the class path "
                                    + "(add the dev.etl:" + missing.artifact() + " dependency, or remove the setting)");
                    return;
                }
                String closest = closest(name, schema);
                String where = display + origin(source.getConfigurationProperty(name));
                if (!shared || Suggestion.distance(display, closest) <= SHARED_TYPO_DISTANCE) {
                    failures.put(
                            display,
                            where + ": did you mean " + closest + "?"
                                    + (environmentVariables
                                            ? " (as an environment variable: " + envForm(closest) + ")"
                                            : ""));
                } else {
                    warnings.put(display, where);
                }
            });
        }
        warnings.values()
                .forEach((line) -> logger.warn("Ignoring an environment variable or system property "
                        + "that binds to no etl.* property: " + line));
        if (!failures.isEmpty()) {
            throw new InvalidEtlConfigurationException(
                    "Unknown etl.* configuration propert"
                            + (failures.size() == 1 ? "y" : "ies") + ", which would be silently ignored:"
                            + System.lineSeparator() + "    "
                            + String.join(System.lineSeparator() + "    ", failures.values()),
                    "Correct or remove " + (failures.size() == 1 ? "it" : "them") + ". Every valid etl.* property "
                            + "is listed in docs/reference/configuration.md (and in the IDE through the starter's "
                            + "configuration metadata). Maps with free keys: etl.source.kafka.properties.*, "
                            + "etl.sink.clickhouse.settings.*, etl.errors.dead-letter.properties.*, etl.metrics.tags.*, "
                            + "etl.errors.stages.* (stage names are checked against the chain when it is built).");
        }
    }

    /** Every valid name, in kebab-case; maps and lists by their own name, maps of groups as {@code map.*.property}. */
    static List<String> validNames() {
        return validNames(schema(EtlPropertyNames.class.getClassLoader()));
    }

    private static List<String> validNames(EtlPropertyNode schema) {
        List<String> names = new ArrayList<>();
        schema.collect("etl", names);
        return names;
    }

    private static String closest(ConfigurationPropertyName name, EtlPropertyNode schema) {
        // list indexes as in validNames(); a longer unknown name is compared by as many elements as the
        // candidate has (a map's or a list's name, or a leaf with a stray suffix)
        String unknown = name.toString().replaceAll("\\[\\d+\\]", "[]");
        String[] elements = unknown.split("\\.");
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int bestLength = 0;
        for (String valid : validNames(schema)) {
            String candidate = withKeys(valid, elements);
            int length = candidate.split("\\.").length;
            String compared =
                    (length < elements.length) ? String.join(".", java.util.Arrays.copyOf(elements, length)) : unknown;
            // each element a shorter candidate leaves unexplained counts as an edit, and of two equally
            // close candidates the longer wins (tables.orders.tabel: tables.orders.table, not table)
            int distance = Suggestion.distance(compared, candidate) + Math.max(0, elements.length - length);
            if (distance < bestDistance || (distance == bestDistance && length > bestLength)) {
                best = candidate;
                bestDistance = distance;
                bestLength = length;
            }
        }
        return best;
    }

    /** {@code name} with each map-key placeholder ({@code *}) replaced by the unknown name's element there. */
    private static String withKeys(String name, String[] elements) {
        if (!name.contains("*")) {
            return name;
        }
        String[] parts = name.split("\\.");
        for (int i = 0; i < parts.length && i < elements.length; i++) {
            if (parts[i].equals("*")) {
                parts[i] = elements[i];
            }
        }
        return String.join(".", parts);
    }

    /**
     * The names that the environment's other enumerable sources (configuration files, command-line
     * arguments, test properties) read as placeholders, from their raw, unresolved values.
     */
    private static Set<String> placeholderNames(Environment environment) {
        Set<String> names = new HashSet<>();
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return names;
        }
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)
                    || source instanceof SystemEnvironmentPropertySource
                    || StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(source.getName())) {
                continue;
            }
            for (String property : enumerable.getPropertyNames()) {
                Object value = enumerable.getProperty(property);
                if (value != null) {
                    Matcher m = PLACEHOLDER.matcher(value.toString());
                    while (m.find()) {
                        names.add(m.group(1).trim());
                    }
                }
            }
        }
        return names;
    }

    /** The name as it was set: the environment variable's ({@code ETL_THREADS}) or the system property's. */
    private static String sourceName(ConfigurationProperty property) {
        Origin origin = (property != null) ? property.getOrigin() : null;
        if (origin instanceof SystemEnvironmentOrigin env) {
            return env.getProperty();
        }
        if (origin instanceof PropertySourceOrigin ps) {
            return ps.getPropertyName();
        }
        return null;
    }

    private static String origin(ConfigurationProperty property) {
        Origin origin = (property != null) ? property.getOrigin() : null;
        return (origin != null) ? " (from " + origin + ")" : "";
    }

    private static String envForm(String name) {
        return name.replace("[]", "_0").replace("-", "").replace('.', '_').toUpperCase(Locale.ROOT);
    }
}
