package dev.etl.avro;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.jspecify.annotations.Nullable;

/**
 * Finds the typed setter of a primitive field in a generated class ({@code setPriceCents(long)} for
 * {@code price_cents}), so {@link RecordReader} sets it without boxing.
 *
 * <p>The name is Avro's compiler's ({@code "set"} and the field name in camel case, a {@code $} after a
 * reserved word), but nothing relies on the naming: a setter is used only if setting two values through
 * it makes {@code get(pos)} return them, on a record made for the check. A class without such a setter
 * (written by hand, {@code createSetters} off, a module that does not open it) keeps the boxing
 * {@code put}.
 */
final class TypedSetter {
    private TypedSetter() {}

    /**
     * The field's setter as a {@code (IndexedRecord, primitive)void} handle, or null.
     *
     * @param probe a record of the class, changed by the check
     * @param set the {@code RecordReader.SET_*} opcode: the primitive type the field stores
     */
    static @Nullable MethodHandle find(IndexedRecord probe, Schema.Field field, int set) {
        Class<?> type = primitive(set);
        for (String name : new String[] {"set" + camel(field.name()), "set" + camel(field.name()) + "$"}) {
            try {
                MethodHandle setter = MethodHandles.publicLookup()
                        .findVirtual(probe.getClass(), name, MethodType.methodType(void.class, type))
                        .asType(MethodType.methodType(void.class, IndexedRecord.class, type));
                if (setsField(setter, probe, field.pos(), set)) {
                    return setter;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // No such public setter, or not accessible: try the next name, else keep put(int, Object).
            }
        }
        return null;
    }

    private static Class<?> primitive(int set) {
        switch (set) {
            case RecordReader.SET_INT:
                return int.class;
            case RecordReader.SET_LONG:
                return long.class;
            case RecordReader.SET_FLOAT:
                return float.class;
            case RecordReader.SET_DOUBLE:
                return double.class;
            case RecordReader.SET_BOOLEAN:
                return boolean.class;
            default:
                throw new IllegalArgumentException("not a SET_ opcode: " + set);
        }
    }

    /** Whether setting two different values through {@code setter} shows them at {@code pos}. */
    private static boolean setsField(MethodHandle setter, IndexedRecord probe, int pos, int set) {
        Object[] values;
        switch (set) {
            case RecordReader.SET_INT:
                values = new Object[] {0x5EED1, -7};
                break;
            case RecordReader.SET_LONG:
                values = new Object[] {0x5EED_0000_0001L, -7L};
                break;
            case RecordReader.SET_FLOAT:
                values = new Object[] {1.5f, -2.25f};
                break;
            case RecordReader.SET_DOUBLE:
                values = new Object[] {1.5d, -2.25d};
                break;
            default:
                values = new Object[] {true, false};
                break;
        }
        try {
            for (Object value : values) {
                setter.invoke(probe, value);
                if (!value.equals(probe.get(pos))) {
                    return false;
                }
            }
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Avro's compiler's method-name form of a field name: {@code price_cents} → {@code PriceCents}. */
    private static String camel(String fieldName) {
        StringBuilder name = new StringBuilder(fieldName.length());
        boolean upper = true;
        for (int i = 0; i < fieldName.length(); i++) {
            char c = fieldName.charAt(i);
            if (c == '_') {
                upper = true;
            } else if (upper) {
                name.append(Character.toUpperCase(c));
                upper = false;
            } else {
                name.append(c);
            }
        }
        return name.toString();
    }

    /** A setter threw: an unchecked exception or error as it is, anything else wrapped. */
    static RuntimeException rethrow(Throwable e) {
        if (e instanceof RuntimeException) {
            return (RuntimeException) e;
        }
        if (e instanceof Error) {
            throw (Error) e;
        }
        return new IllegalStateException("the generated setter threw", e);
    }
}
