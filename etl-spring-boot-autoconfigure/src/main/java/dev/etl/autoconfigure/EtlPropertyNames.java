package dev.etl.autoconfigure;

import dev.etl.error.Suggestion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.CachingMetadataReaderFactory;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.util.ClassUtils;

/**
 * Refuses {@code etl.*} names that bind to nothing. The valid names are derived from the
 * {@code @ConfigurationProperties} classes under {@code etl}: those the context registers and those the
 * auto-configurations on the class path enable ({@code @EnableConfigurationProperties}, read from their
 * class files, so one whose condition did not match still counts: its properties are what a misspelt
 * setting was meant for). A new connector is one more auto-configuration; nothing here lists it. An
 * auto-configuration whose {@code @ConditionalOnClass} names a class that is absent makes its prefix
 * "missing": a name under it fails saying which artifact to add ({@code dev.etl.<name>.*} is in
 * {@code dev.etl:etl-<name>}). The prefixes do not contain one another, so each name has one class.
 * Within a class the names follow its JavaBean structure ({@link EtlPropertyNode}) and are compared the
 * way Boot's relaxed binding does (kebab-case, camelCase, underscores and case are equivalent;
 * {@code ETL_PIPELINE_THREADS} is {@code etl.pipeline.threads}). Maps with free keys ({@code properties},
 * {@code settings}, {@code tags}, {@code etl.errors.stages}) accept any key under them, and maps of groups
 * ({@code etl.sink.clickhouse.tables.<name>.*}) any key followed by the group's properties; enum-keyed maps
 * ({@code etl.errors.types}) only the enum's values. Stage names are checked by the engine against the
 * assembled chains.
 *
 * <p>Why not Boot's own check ({@code ignoreUnknownFields = false})? It fails on every unbound name of
 * every property source, and without a suggestion. Environment variables and JVM system properties are
 * namespaces shared with unrelated tools (Kubernetes adds {@code ETL_SERVICE_PORT} for a service named
 * "etl"; test harnesses set their own {@code -Detl.*} flags), so an unknown name from them fails startup
 * only when it is a near miss of a valid name (edit distance {@value #SHARED_TYPO_DISTANCE} or less);
 * otherwise it is logged at WARN. One that a configuration file reads as a placeholder
 * ({@code threads: ${ETL_THREADS:2}}, as the sample does) is the application's own variable, used where it
 * says: neither.
 */
final class EtlPropertyNames {

    static final int SHARED_TYPO_DISTANCE = 2;

    private static final Log logger = LogFactory.getLog(EtlPropertyNames.class);

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("etl");
    /** The name in {@code ${NAME}} or {@code ${NAME:default}}. */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}:]+)");

    /** The tree of valid names, and the prefixes whose auto-configuration lacks a class (by that class). */
    record Schema(EtlPropertyNode root, Map<ConfigurationPropertyName, String> missing) {

        /** The missing prefix {@code name} is under, with the class its auto-configuration lacks; else null. */
        Map.Entry<ConfigurationPropertyName, String> missing(ConfigurationPropertyName name) {
            for (Map.Entry<ConfigurationPropertyName, String> prefix : this.missing.entrySet()) {
                if (prefix.getKey().isAncestorOf(name) || prefix.getKey().equals(name)) {
                    return prefix;
                }
            }
            return null;
        }
    }

    private EtlPropertyNames() {}

    /**
     * The {@code etl.*} properties classes of {@code beanFactory}'s bean definitions and of the
     * auto-configurations {@code loader} lists, each under its prefix.
     */
    static Schema schema(ConfigurableListableBeanFactory beanFactory, ClassLoader loader) {
        Map<ConfigurationPropertyName, Class<?>> present = new LinkedHashMap<>();
        Map<ConfigurationPropertyName, String> missing = new LinkedHashMap<>();
        for (String bean : beanFactory.getBeanDefinitionNames()) {
            String type = beanFactory.getBeanDefinition(bean).getBeanClassName();
            Class<?> loaded = (type != null) ? load(type, loader) : null;
            ConfigurationProperties annotation = (loaded != null)
                    ? AnnotatedElementUtils.findMergedAnnotation(loaded, ConfigurationProperties.class)
                    : null;
            if (annotation != null) {
                etlPrefix(annotation.prefix()).ifPresent((prefix) -> present.putIfAbsent(prefix, loaded));
            }
        }
        MetadataReaderFactory readers = new CachingMetadataReaderFactory(loader);
        for (String candidate : ImportCandidates.load(AutoConfiguration.class, loader)) {
            AnnotationMetadata configuration = metadata(readers, candidate);
            Map<String, Object> enabled = (configuration != null)
                    ? configuration.getAnnotationAttributes(EnableConfigurationProperties.class.getName(), true)
                    : null;
            if (enabled == null) {
                continue;
            }
            String absent = absentClass(configuration, loader);
            for (String type : (String[]) enabled.get("value")) {
                AnnotationMetadata properties = metadata(readers, type);
                Map<String, Object> annotation = (properties != null)
                        ? properties.getAnnotationAttributes(ConfigurationProperties.class.getName())
                        : null;
                Optional<ConfigurationPropertyName> prefix =
                        (annotation != null) ? etlPrefix((String) annotation.get("prefix")) : Optional.empty();
                Class<?> loaded = (prefix.isPresent() && absent == null) ? load(type, loader) : null;
                if (loaded != null) {
                    present.putIfAbsent(prefix.get(), loaded);
                } else if (prefix.isPresent() && absent != null) {
                    missing.putIfAbsent(prefix.get(), absent);
                }
            }
        }
        missing.keySet().removeAll(present.keySet());
        EtlPropertyNode root = EtlPropertyNode.root();
        present.forEach((prefix, type) -> root.graft(elements(prefix), EtlPropertyNode.bean(type, 2)));
        return new Schema(root, missing);
    }

    private static Optional<ConfigurationPropertyName> etlPrefix(String prefix) {
        ConfigurationPropertyName name = ConfigurationPropertyName.adapt(prefix, '.');
        return ROOT.isAncestorOf(name) ? Optional.of(name) : Optional.empty();
    }

    private static String[] elements(ConfigurationPropertyName prefix) {
        String[] elements = new String[prefix.getNumberOfElements() - 1];
        for (int i = 1; i < prefix.getNumberOfElements(); i++) {
            elements[i - 1] = prefix.getElement(i, ConfigurationPropertyName.Form.DASHED);
        }
        return elements;
    }

    /** The first class the auto-configuration's {@code @ConditionalOnClass} names that {@code loader} lacks. */
    private static String absentClass(AnnotationMetadata configuration, ClassLoader loader) {
        Map<String, Object> condition = configuration.getAnnotationAttributes(ConditionalOnClass.class.getName(), true);
        if (condition == null) {
            return null;
        }
        return Stream.concat(Stream.of((String[]) condition.get("value")), Stream.of((String[]) condition.get("name")))
                .filter((type) -> !ClassUtils.isPresent(type, loader))
                .findFirst()
                .orElse(null);
    }

    private static AnnotationMetadata metadata(MetadataReaderFactory readers, String type) {
        try {
            return readers.getMetadataReader(type).getAnnotationMetadata();
        } catch (IOException | RuntimeException ex) {
            return null;
        }
    }

    private static Class<?> load(String type, ClassLoader loader) {
        try {
            return ClassUtils.forName(type, loader);
        } catch (ClassNotFoundException | LinkageError ex) {
            return null;
        }
    }

    /** The artifact of a {@code dev.etl.<name>.*} class, {@code etl-<name>}; else null. */
    private static String artifact(String type) {
        String[] parts = type.split("\\.");
        return (parts.length > 3 && parts[0].equals("dev") && parts[1].equals("etl")) ? "etl-" + parts[2] : null;
    }

    /**
     * Checks every {@code etl.*} name of the environment's enumerable property sources against
     * {@code schema}.
     *
     * @throws InvalidEtlConfigurationException naming each unknown property, where it was set and the
     *         closest valid name
     */
    static void check(Environment environment, Schema schema) {
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
                if (schema.root().accepts(name, 1)
                        || (shared && placeholders.contains(sourceName(source.getConfigurationProperty(name))))) {
                    return;
                }
                String display = name.toString();
                if (failures.containsKey(display) || warnings.containsKey(display)) {
                    return;
                }
                Map.Entry<ConfigurationPropertyName, String> prefix = schema.missing(name);
                if (prefix != null) {
                    String missing = prefix.getValue();
                    String artifact = artifact(missing);
                    failures.put(
                            display,
                            display + origin(source.getConfigurationProperty(name)) + ": configures " + prefix.getKey()
                                    + ", but " + ((artifact != null) ? artifact : missing)
                                    + " is not on the class path (no "
                                    + missing + "; add "
                                    + ((artifact != null) ? "the dev.etl:" + artifact + " dependency" : "its artifact")
                                    + ", or remove the setting)");
                    return;
                }
                String closest = closest(name, schema.root());
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
    static List<String> validNames(EtlPropertyNode schema) {
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
