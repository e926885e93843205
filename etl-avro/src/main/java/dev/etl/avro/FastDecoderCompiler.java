package dev.etl.avro;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Type;
import org.apache.avro.generic.GenericData;

/**
 * Compiles a (writer, reader) schema pair into a tree of {@link ValueReader}s that applies Avro's
 * schema-resolution rules once, at compile time: field matching by name and alias, skipped writer
 * fields, reader defaults, numeric and string/bytes promotion, enum symbol mapping, union branch
 * selection.
 *
 * <p>Only pairs that {@link org.apache.avro.SchemaCompatibility} already accepted are compiled.
 * Throws {@link Unsupported} for what the fast path does not do — recursive records, logical types
 * the data model converts (e.g. {@code timestamp-millis} to {@code Instant} in generated classes),
 * {@code java-class} string properties, reader unions it cannot resolve exactly like Avro — and the
 * caller falls back to Avro's resolving reader.
 */
final class FastDecoderCompiler {
    private final GenericData model;
    private final Set<String> inProgress = new HashSet<>();

    private FastDecoderCompiler(GenericData model) {
        this.model = model;
    }

    /** The schema pair cannot be compiled; use Avro's resolving reader instead. */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    /** Compiles a record pair; the result reads a whole body. */
    static RecordReader compile(Schema writer, Schema reader, GenericData model) throws Unsupported {
        if (writer.getType() != Type.RECORD || reader.getType() != Type.RECORD) {
            throw new Unsupported("top-level schema is not a record");
        }
        return new FastDecoderCompiler(model).record(writer, reader);
    }

    private ValueReader resolve(Schema writer, Schema reader) throws Unsupported {
        checkReader(reader);
        if (writer.getType() == Type.UNION) {
            List<Schema> branches = writer.getTypes();
            ValueReader[] readers = new ValueReader[branches.size()];
            for (int i = 0; i < readers.length; i++) {
                Schema branch = branches.get(i);
                readers[i] = resolve(branch, reader.getType() == Type.UNION ? bestBranch(reader, branch) : reader);
            }
            return new CompositeReaders.Union(readers);
        }
        if (reader.getType() == Type.UNION) {
            return resolve(writer, bestBranch(reader, writer));
        }
        Type w = writer.getType();
        Type r = reader.getType();
        switch (w) {
            case NULL:
                return expect(r == Type.NULL, writer, reader, ValueReader.OP_NULL);
            case BOOLEAN:
                return expect(r == Type.BOOLEAN, writer, reader, ValueReader.OP_BOOLEAN);
            case INT:
                switch (r) {
                    case INT:
                        return new ValueReader.Primitive(ValueReader.OP_INT);
                    case LONG:
                        return new ValueReader.Primitive(ValueReader.OP_INT_AS_LONG);
                    case FLOAT:
                        return new ValueReader.Primitive(ValueReader.OP_INT_AS_FLOAT);
                    case DOUBLE:
                        return new ValueReader.Primitive(ValueReader.OP_INT_AS_DOUBLE);
                    default:
                        throw mismatch(writer, reader);
                }
            case LONG:
                switch (r) {
                    case LONG:
                        return new ValueReader.Primitive(ValueReader.OP_LONG);
                    case FLOAT:
                        return new ValueReader.Primitive(ValueReader.OP_LONG_AS_FLOAT);
                    case DOUBLE:
                        return new ValueReader.Primitive(ValueReader.OP_LONG_AS_DOUBLE);
                    default:
                        throw mismatch(writer, reader);
                }
            case FLOAT:
                if (r == Type.FLOAT) {
                    return new ValueReader.Primitive(ValueReader.OP_FLOAT);
                }
                return expect(r == Type.DOUBLE, writer, reader, ValueReader.OP_FLOAT_AS_DOUBLE);
            case DOUBLE:
                return expect(r == Type.DOUBLE, writer, reader, ValueReader.OP_DOUBLE);
            case STRING:
            case BYTES:
                // Same encoding; the reader's type decides the Java type.
                if (r == Type.BYTES) {
                    return new CompositeReaders.Bytes();
                }
                if (r != Type.STRING) {
                    throw mismatch(writer, reader);
                }
                return new ValueReader.Primitive(javaString(reader) ? ValueReader.OP_STRING : ValueReader.OP_UTF8);
            case FIXED:
                if (r != Type.FIXED || reader.getFixedSize() != writer.getFixedSize() || !namesMatch(writer, reader)) {
                    throw mismatch(writer, reader);
                }
                return new CompositeReaders.Fixed(reader, model);
            case ENUM:
                if (r != Type.ENUM || !namesMatch(writer, reader)) {
                    throw mismatch(writer, reader);
                }
                return enumReader(writer, reader);
            case ARRAY:
                if (r != Type.ARRAY) {
                    throw mismatch(writer, reader);
                }
                return new CompositeReaders.Array(
                        reader, model, resolve(writer.getElementType(), reader.getElementType()));
            case MAP:
                if (r != Type.MAP) {
                    throw mismatch(writer, reader);
                }
                return new CompositeReaders.MapReader(
                        model, javaString(reader), resolve(writer.getValueType(), reader.getValueType()));
            case RECORD:
                if (r != Type.RECORD || !namesMatch(writer, reader)) {
                    throw mismatch(writer, reader);
                }
                return record(writer, reader);
            default:
                throw new Unsupported("type " + w);
        }
    }

    private RecordReader record(Schema writer, Schema reader) throws Unsupported {
        String key = writer.getFullName() + "->" + reader.getFullName();
        if (!inProgress.add(key)) {
            throw new Unsupported("recursive record " + reader.getFullName());
        }
        List<Schema.Field> writerFields = writer.getFields();
        int n = writerFields.size();
        int[] ops = new int[n];
        int[] positions = new int[n];
        ValueReader[] readers = new ValueReader[n];
        Schema[] skipped = new Schema[n];
        boolean[] written = new boolean[reader.getFields().size()];
        for (int i = 0; i < n; i++) {
            Schema.Field wf = writerFields.get(i);
            Schema.Field rf = readerField(reader, wf);
            if (rf == null) {
                ops[i] = -1;
                skipped[i] = wf.schema();
                continue;
            }
            written[rf.pos()] = true;
            positions[i] = rf.pos();
            readers[i] = resolve(wf.schema(), rf.schema());
            ops[i] = readers[i].opcode();
        }
        List<Integer> defaultPositions = new ArrayList<>();
        List<Object> defaults = new ArrayList<>();
        List<Schema> mutable = new ArrayList<>();
        for (Schema.Field rf : reader.getFields()) {
            if (written[rf.pos()]) {
                continue;
            }
            if (!rf.hasDefaultValue()) {
                throw new Unsupported("reader field " + rf.name() + " has no default");
            }
            checkReader(rf.schema());
            Object value = model.getDefaultValue(rf);
            defaultPositions.add(rf.pos());
            defaults.add(value);
            mutable.add(isImmutable(value) ? null : rf.schema());
        }
        inProgress.remove(key);
        return new RecordReader(
                reader,
                model,
                ops,
                positions,
                readers,
                skipped,
                defaultPositions.stream().mapToInt(Integer::intValue).toArray(),
                defaults.toArray(),
                mutable.toArray(new Schema[0]));
    }

    private static Schema.Field readerField(Schema reader, Schema.Field writerField) {
        Schema.Field byName = reader.getField(writerField.name());
        if (byName != null) {
            return byName;
        }
        for (Schema.Field candidate : reader.getFields()) {
            if (candidate.aliases().contains(writerField.name())) {
                return candidate;
            }
        }
        return null;
    }

    private ValueReader enumReader(Schema writer, Schema reader) {
        List<String> writerSymbols = writer.getEnumSymbols();
        Object[] symbols = new Object[writerSymbols.size()];
        String fallback = reader.getEnumDefault();
        for (int i = 0; i < symbols.length; i++) {
            String symbol = writerSymbols.get(i);
            String target = reader.hasEnumSymbol(symbol) ? symbol : fallback;
            symbols[i] = target == null ? null : model.createEnum(target, reader);
        }
        return new CompositeReaders.Enum(symbols, writerSymbols.toArray(new String[0]));
    }

    /**
     * The reader branch a writer type resolves to: the same type (for named types, the same full
     * name), else the first branch it promotes to — Avro's order. Ambiguous structural matches
     * between differently named records are left to Avro.
     */
    private static Schema bestBranch(Schema readerUnion, Schema writer) throws Unsupported {
        Type w = writer.getType();
        for (Schema branch : readerUnion.getTypes()) {
            if (branch.getType() != w) {
                continue;
            }
            if (w != Type.RECORD && w != Type.ENUM && w != Type.FIXED) {
                return branch;
            }
            if (writer.getFullName().equals(branch.getFullName())) {
                return branch;
            }
        }
        for (Schema branch : readerUnion.getTypes()) {
            if (branch.getType() == w) {
                throw new Unsupported("union branch chosen by structure for " + writer.getFullName());
            }
        }
        for (Schema branch : readerUnion.getTypes()) {
            if (promotes(w, branch.getType())) {
                return branch;
            }
        }
        throw new Unsupported("no reader union branch for " + writer);
    }

    private static boolean promotes(Type writer, Type reader) {
        switch (writer) {
            case INT:
                return reader == Type.LONG || reader == Type.FLOAT || reader == Type.DOUBLE;
            case LONG:
                return reader == Type.FLOAT || reader == Type.DOUBLE;
            case FLOAT:
                return reader == Type.DOUBLE;
            case STRING:
                return reader == Type.BYTES;
            case BYTES:
                return reader == Type.STRING;
            default:
                return false;
        }
    }

    private static boolean namesMatch(Schema writer, Schema reader) {
        return writer.getFullName().equals(reader.getFullName())
                || writer.getName().equals(reader.getName())
                || reader.getAliases().contains(writer.getFullName());
    }

    /** Rejects reader schemas whose Java representation the fast path does not produce. */
    private void checkReader(Schema reader) throws Unsupported {
        if (reader.getLogicalType() != null && model.getConversionFor(reader.getLogicalType()) != null) {
            throw new Unsupported("logical type " + reader.getLogicalType().getName() + " with a conversion");
        }
        if (reader.getProp("java-class") != null
                || reader.getProp("java-key-class") != null
                || reader.getProp("java-element-class") != null) {
            throw new Unsupported("java-class property");
        }
        String stringType = reader.getProp(GenericData.STRING_PROP);
        if (stringType != null
                && !stringType.equals("String")
                && !stringType.equals("CharSequence")
                && !stringType.equals("Utf8")) {
            throw new Unsupported("avro.java.string " + stringType);
        }
    }

    private static boolean javaString(Schema reader) {
        return "String".equals(reader.getProp(GenericData.STRING_PROP));
    }

    private static boolean isImmutable(Object value) {
        return value == null
                || value instanceof String
                || value instanceof Number
                || value instanceof Boolean
                || value instanceof GenericData.EnumSymbol
                || value instanceof java.lang.Enum;
    }

    private static ValueReader expect(boolean matches, Schema writer, Schema reader, int opcode) throws Unsupported {
        if (!matches) {
            throw mismatch(writer, reader);
        }
        return new ValueReader.Primitive(opcode);
    }

    private static Unsupported mismatch(Schema writer, Schema reader) {
        return new Unsupported("writer " + writer.getType() + " does not resolve to reader " + reader.getType());
    }
}
