package dev.etl.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.ResolvableType;

/**
 * What may follow a name: nested properties, list indexes, map keys, or nothing. One node of the tree
 * of valid {@code etl.*} names that {@link EtlPropertyNames} checks against, built from the properties
 * classes by JavaBean introspection ({@link #bean}), each grafted under its prefix ({@link #graft}); with the relaxed form of a name element ({@link #uniform}) that names are compared
 * in, and the kebab-case form suggestions are shown in.
 */
final class EtlPropertyNode {

    enum Kind {
        BEAN,
        LEAF,
        LIST,
        FREE_MAP,
        ENUM_MAP
    }

    private final Kind kind;

    /** BEAN: properties by uniform name; ENUM_MAP: values by uniform key. */
    private final Map<String, EtlPropertyNode> children;

    /** Kebab-case names of {@link #children}, for suggestions. */
    private final Map<String, String> display;

    /** LIST: the element; FREE_MAP: the value when it is a bean, else null. */
    private final EtlPropertyNode element;

    private EtlPropertyNode(
            Kind kind, Map<String, EtlPropertyNode> children, Map<String, String> display, EtlPropertyNode element) {
        this.kind = kind;
        this.children = children;
        this.display = display;
        this.element = element;
    }

    static final EtlPropertyNode LEAF = new EtlPropertyNode(Kind.LEAF, Map.of(), Map.of(), null);

    /** {@code etl} itself: a bean node with nothing under it yet ({@link #graft} adds the properties classes). */
    static EtlPropertyNode root() {
        return new EtlPropertyNode(Kind.BEAN, new LinkedHashMap<>(), new LinkedHashMap<>(), null);
    }

    static EtlPropertyNode bean(Class<?> type, int depth) {
        if (depth > 16) {
            throw new IllegalStateException("etl.* properties nest deeper than 16 levels at " + type.getName());
        }
        Map<String, EtlPropertyNode> children = new LinkedHashMap<>();
        Map<String, String> display = new LinkedHashMap<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
                continue;
            }
            String uniform = uniform(descriptor.getName());
            children.put(uniform, of(ResolvableType.forMethodReturnType(descriptor.getReadMethod()), depth + 1));
            display.put(uniform, kebab(descriptor.getName()));
        }
        return new EtlPropertyNode(Kind.BEAN, children, display, null);
    }

    static EtlPropertyNode of(ResolvableType type, int depth) {
        Class<?> raw = type.toClass();
        if (Map.class.isAssignableFrom(raw)) {
            ResolvableType map = type.asMap();
            Class<?> key = map.getGeneric(0).toClass();
            EtlPropertyNode value = of(map.getGeneric(1), depth);
            if (key.isEnum()) {
                Map<String, EtlPropertyNode> children = new LinkedHashMap<>();
                Map<String, String> display = new LinkedHashMap<>();
                for (Object constant : key.getEnumConstants()) {
                    String name = ((Enum<?>) constant).name();
                    children.put(uniform(name), value);
                    display.put(uniform(name), name.toLowerCase(Locale.ROOT).replace('_', '-'));
                }
                return new EtlPropertyNode(Kind.ENUM_MAP, children, display, null);
            }
            return new EtlPropertyNode(Kind.FREE_MAP, Map.of(), Map.of(), (value.kind == Kind.BEAN) ? value : null);
        }
        if (raw.isArray() || Collection.class.isAssignableFrom(raw)) {
            ResolvableType element = raw.isArray()
                    ? type.getComponentType()
                    : type.as(Collection.class).getGeneric(0);
            return new EtlPropertyNode(Kind.LIST, Map.of(), Map.of(), of(element, depth));
        }
        if (isBean(raw)) {
            return bean(raw, depth);
        }
        return LEAF;
    }

    private static boolean isBean(Class<?> type) {
        return !type.isEnum()
                && !type.isPrimitive()
                && !type.isInterface()
                && !type.isArray()
                && type.getName().startsWith("dev.etl.");
    }

    /** Puts {@code node} at {@code path} (a properties class's prefix) below this bean node, creating intermediate bean nodes. */
    void graft(String[] path, EtlPropertyNode node) {
        EtlPropertyNode parent = this;
        for (int i = 0; i < path.length - 1; i++) {
            String uniform = uniform(path[i]);
            EtlPropertyNode child = parent.children.get(uniform);
            if (child == null || child.kind != Kind.BEAN) {
                child = new EtlPropertyNode(Kind.BEAN, new LinkedHashMap<>(), new LinkedHashMap<>(), null);
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
                EtlPropertyNode child =
                        this.children.get(uniform(name.getElement(index, ConfigurationPropertyName.Form.ORIGINAL)));
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
                    } else {
                        child.collect(name, names);
                    }
                });
                break;
            case LIST:
                if (this.element.kind == Kind.BEAN) {
                    this.element.collect(prefix + "[]", names);
                } else {
                    names.add(prefix);
                }
                break;
            case FREE_MAP:
                if (this.element != null) {
                    // a map of beans (etl.sink.clickhouse.tables): its properties under a key placeholder
                    this.element.collect(prefix + ".*", names);
                } else {
                    names.add(prefix);
                }
                break;
            default:
                names.add(prefix);
                break;
        }
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
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
