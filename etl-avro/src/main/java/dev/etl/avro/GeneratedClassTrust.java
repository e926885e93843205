package dev.etl.avro;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Avro 1.12.1+ refuses to load classes by name unless they are trusted
 * ({@link ClassSecurityValidator}: system properties {@code org.apache.avro.SERIALIZABLE_PACKAGES}
 * or {@code SERIALIZABLE_CLASSES}), and {@code SpecificData} loads generated classes by name. When a
 * user hands us a generated class, we trust exactly the generated classes its own schema names,
 * resolved through that class's loader — never a name taken from a writer schema or payload.
 */
final class GeneratedClassTrust {
    private GeneratedClassTrust() {}

    /** Adds the generated classes named by {@code type}'s schema to Avro's global trusted set. */
    static synchronized void trust(Class<?> type) {
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        List<Class<?>> named = new ArrayList<>();
        collect(schema, type.getClassLoader(), new HashSet<>(), named);
        ClassSecurityValidator.ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
        ClassSecurityValidator.Builder extra = ClassSecurityValidator.builder();
        boolean any = false;
        for (Class<?> c : named) {
            if (!current.isTrusted(c)) {
                extra.add(c);
                any = true;
            }
        }
        if (any) {
            ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(current, extra.build()));
        }
    }

    private static void collect(Schema schema, ClassLoader loader, Set<String> seen, List<Class<?>> out) {
        switch (schema.getType()) {
            case RECORD:
            case ENUM:
            case FIXED:
                if (!seen.add(schema.getFullName())) {
                    return;
                }
                try {
                    out.add(Class.forName(SpecificData.getClassName(schema), false, loader));
                } catch (ClassNotFoundException e) {
                    // Not generated (e.g. a record used only as a generic part of the schema): nothing to trust.
                }
                if (schema.getType() == Schema.Type.RECORD) {
                    for (Schema.Field field : schema.getFields()) {
                        collect(field.schema(), loader, seen, out);
                    }
                }
                return;
            case ARRAY:
                collect(schema.getElementType(), loader, seen, out);
                return;
            case MAP:
                collect(schema.getValueType(), loader, seen, out);
                return;
            case UNION:
                for (Schema branch : schema.getTypes()) {
                    collect(branch, loader, seen, out);
                }
                return;
            default:
                return;
        }
    }
}
