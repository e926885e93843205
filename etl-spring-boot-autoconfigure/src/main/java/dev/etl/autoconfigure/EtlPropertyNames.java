package dev.etl.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.ClassUtils;

import dev.etl.util.Suggestion;

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
 * valid name (edit distance {@value #SHARED_TYPO_DISTANCE} or less); otherwise it is logged at WARN.
 */
final class EtlPropertyNames {

    static final int SHARED_TYPO_DISTANCE = 2;

    private static final Log logger = LogFactory.getLog(EtlPropertyNames.class);

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("etl");

    /**
     * The properties classes of the connectors, each bound under its prefix by its auto-configuration,
     * with the connector class it needs (absent: its names are reported as such, not as typos).
     */
    private static final List<Connector> CONNECTORS = List.of(
            new Connector("source.kafka", "dev.etl.autoconfigure.kafka.EtlKafkaProperties", "dev.etl.kafka.KafkaSource",
                    "etl-kafka"),
            new Connector("errors.dead-letter", "dev.etl.autoconfigure.kafka.EtlDeadLetterProperties",
                    "dev.etl.kafka.KafkaDeadLetterWriter", "etl-kafka"),
            new Connector("avro", "dev.etl.autoconfigure.avro.EtlAvroProperties", "dev.etl.avro.AvroDeserializer",
                    "etl-avro"),
            new Connector("json", "dev.etl.autoconfigure.json.EtlJsonProperties", "dev.etl.json.JsonDeserializer",
                    "etl-json"),
            new Connector("sink.clickhouse", "dev.etl.autoconfigure.clickhouse.EtlClickHouseProperties",
                    "dev.etl.clickhouse.ClickHouseSink", "etl-clickhouse"),
            new Connector("source.datagen", "dev.etl.autoconfigure.datagen.EtlDatagenProperties",
                    "dev.etl.datagen.DatagenSource", "etl-datagen"));

    private record Connector(String path, String propertiesClass, String requiredClass, String artifact) {

        boolean present(ClassLoader loader) {
            return ClassUtils.isPresent(this.requiredClass, loader) && ClassUtils.isPresent(this.propertiesClass, loader);
        }

    }

    /**
     * {@link EtlProperties} with each connector's properties grafted under its prefix, for the
     * connectors {@code loader} (the application's) can load.
     */
    private static Node schema(ClassLoader loader) {
        Node root = Node.bean(EtlProperties.class, 0);
        for (Connector connector : CONNECTORS) {
            if (connector.present(loader)) {
                root.graft(connector.path().split("\\."),
                        Node.bean(ClassUtils.resolveClassName(connector.propertiesClass(), loader), 2));
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

    private EtlPropertyNames() {
    }

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
        Node schema = schema(loader);
        Map<String, String> failures = new TreeMap<>();
        Map<String, String> warnings = new TreeMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            boolean environmentVariables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
            boolean shared = environmentVariables || (source.getUnderlyingSource() instanceof PropertySource<?> ps
                    && StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(ps.getName()));
            iterable.stream().filter(ROOT::isAncestorOf).forEach((name) -> {
                if (schema.accepts(name, 1)) {
                    return;
                }
                String display = name.toString();
                if (failures.containsKey(display) || warnings.containsKey(display)) {
                    return;
                }
                Connector missing = missingConnector(name, loader);
                if (missing != null) {
                    failures.put(display, display + origin(source.getConfigurationProperty(name)) + ": configures "
                            + "etl." + missing.path() + ", but " + missing.artifact() + " is not on the class path "
                            + "(add the dev.etl:" + missing.artifact() + " dependency, or remove the setting)");
                    return;
                }
                String closest = closest(name, schema);
                String where = display + origin(source.getConfigurationProperty(name));
                if (!shared || Suggestion.distance(display, closest) <= SHARED_TYPO_DISTANCE) {
                    failures.put(display, where + ": did you mean " + closest + "?" + (environmentVariables
                            ? " (as an environment variable: " + envForm(closest) + ")" : ""));
                }
                else {
                    warnings.put(display, where);
                }
            });
        }
        warnings.values().forEach((line) -> logger.warn("Ignoring an environment variable or system property "
                + "that binds to no etl.* property: " + line));
        if (!failures.isEmpty()) {
            throw new InvalidEtlConfigurationException("Unknown etl.* configuration propert"
                    + (failures.size() == 1 ? "y" : "ies") + ", which would be silently ignored:"
                    + System.lineSeparator() + "    " + String.join(System.lineSeparator() + "    ", failures.values()),
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

    private static List<String> validNames(Node schema) {
        List<String> names = new ArrayList<>();
        schema.collect("etl", names);
        return names;
    }

    private static String closest(ConfigurationPropertyName name, Node schema) {
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
            String compared = (length < elements.length)
                    ? String.join(".", java.util.Arrays.copyOf(elements, length)) : unknown;
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

    private static String origin(ConfigurationProperty property) {
        Origin origin = (property != null) ? property.getOrigin() : null;
        return (origin != null) ? " (from " + origin + ")" : "";
    }

    private static String envForm(String name) {
        return name.replace("[]", "_0").replace("-", "").replace('.', '_').toUpperCase(Locale.ROOT);
    }

    /** Relaxed form of one element: lower case, letters and digits only. */
    static String uniform(String element) {
        StringBuilder out = new StringBuilder(element.length());
        for (int i = 0; i < element.length(); i++) {
            char c = element.charAt(i);
            if (Character.isLetterOrDigit(c)) {
                out.append(Character.toLowerCase(c));
            }
        }
        return out.toString();
    }

    private static String kebab(String javaName) {
        StringBuilder out = new StringBuilder(javaName.length() + 4);
        for (int i = 0; i < javaName.length(); i++) {
            char c = javaName.charAt(i);
            if (Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            }
            else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** What may follow a name: nested properties, list indexes, map keys, or nothing. */
    private static final class Node {

        enum Kind {
            BEAN, LEAF, LIST, FREE_MAP, ENUM_MAP
        }

        private final Kind kind;

        /** BEAN: properties by uniform name; ENUM_MAP: values by uniform key. */
        private final Map<String, Node> children;

        /** Kebab-case names of {@link #children}, for suggestions. */
        private final Map<String, String> display;

        /** LIST: the element; FREE_MAP: the value when it is a bean, else null. */
        private final Node element;

        private Node(Kind kind, Map<String, Node> children, Map<String, String> display, Node element) {
            this.kind = kind;
            this.children = children;
            this.display = display;
            this.element = element;
        }

        static final Node LEAF = new Node(Kind.LEAF, Map.of(), Map.of(), null);

        static Node bean(Class<?> type, int depth) {
            if (depth > 16) {
                throw new IllegalStateException("etl.* properties nest deeper than 16 levels at " + type.getName());
            }
            Map<String, Node> children = new LinkedHashMap<>();
            Map<String, String> display = new LinkedHashMap<>();
            for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
                if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
                    continue;
                }
                String uniform = uniform(descriptor.getName());
                children.put(uniform, of(ResolvableType.forMethodReturnType(descriptor.getReadMethod()), depth + 1));
                display.put(uniform, kebab(descriptor.getName()));
            }
            return new Node(Kind.BEAN, children, display, null);
        }

        static Node of(ResolvableType type, int depth) {
            Class<?> raw = type.toClass();
            if (Map.class.isAssignableFrom(raw)) {
                ResolvableType map = type.asMap();
                Class<?> key = map.getGeneric(0).toClass();
                Node value = of(map.getGeneric(1), depth);
                if (key.isEnum()) {
                    Map<String, Node> children = new LinkedHashMap<>();
                    Map<String, String> display = new LinkedHashMap<>();
                    for (Object constant : key.getEnumConstants()) {
                        String name = ((Enum<?>) constant).name();
                        children.put(uniform(name), value);
                        display.put(uniform(name), name.toLowerCase(Locale.ROOT).replace('_', '-'));
                    }
                    return new Node(Kind.ENUM_MAP, children, display, null);
                }
                return new Node(Kind.FREE_MAP, Map.of(), Map.of(), (value.kind == Kind.BEAN) ? value : null);
            }
            if (raw.isArray() || Collection.class.isAssignableFrom(raw)) {
                ResolvableType element = raw.isArray() ? type.getComponentType() : type.as(Collection.class).getGeneric(0);
                return new Node(Kind.LIST, Map.of(), Map.of(), of(element, depth));
            }
            if (isBean(raw)) {
                return bean(raw, depth);
            }
            return LEAF;
        }

        private static boolean isBean(Class<?> type) {
            return !type.isEnum() && !type.isPrimitive() && !type.isInterface() && !type.isArray()
                    && type.getName().startsWith("dev.etl.");
        }

        /** Puts {@code node} at {@code path} below this bean node, creating intermediate bean nodes. */
        void graft(String[] path, Node node) {
            Node parent = this;
            for (int i = 0; i < path.length - 1; i++) {
                String uniform = uniform(path[i]);
                Node child = parent.children.get(uniform);
                if (child == null || child.kind != Kind.BEAN) {
                    child = new Node(Kind.BEAN, new LinkedHashMap<>(), new LinkedHashMap<>(), null);
                    parent.children.put(uniform, child);
                    parent.display.put(uniform, path[i]);
                }
                parent = child;
            }
            String last = path[path.length - 1];
            parent.children.put(uniform(last), node);
            parent.display.put(uniform(last), last);
        }

        /** Whether the elements of {@code name} from {@code index} on bind to this node. */
        boolean accepts(ConfigurationPropertyName name, int index) {
            int size = name.getNumberOfElements();
            if (index == size) {
                return true;
            }
            switch (this.kind) {
                case LEAF:
                    return false;
                case LIST:
                    return name.isNumericIndex(index) && this.element.accepts(name, index + 1);
                case FREE_MAP:
                    // map keys may contain dots; a bean value consumes the elements after one key
                    return this.element == null || this.element.accepts(name, index + 1);
                case ENUM_MAP:
                case BEAN:
                default:
                    Node child = this.children.get(uniform(name.getElement(index, ConfigurationPropertyName.Form.ORIGINAL)));
                    return child != null && child.accepts(name, index + 1);
            }
        }

        void collect(String prefix, List<String> names) {
            switch (this.kind) {
                case BEAN:
                case ENUM_MAP:
                    this.children.forEach((uniform, child) -> {
                        String name = prefix + "." + this.display.get(uniform);
                        if (child.kind == Kind.LEAF) {
                            names.add(name);
                        }
                        else {
                            child.collect(name, names);
                        }
                    });
                    break;
                case LIST:
                    if (this.element.kind == Kind.BEAN) {
                        this.element.collect(prefix + "[]", names);
                    }
                    else {
                        names.add(prefix);
                    }
                    break;
                case FREE_MAP:
                    if (this.element != null) {
                        // a map of beans (etl.sink.clickhouse.tables): its properties under a key placeholder
                        this.element.collect(prefix + ".*", names);
                    }
                    else {
                        names.add(prefix);
                    }
                    break;
                default:
                    names.add(prefix);
                    break;
            }
        }

    }

}
