package dev.etl.avro;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.MalformedAvroException;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericArray;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;

/** The {@link ValueReader}s of non-primitive types; each reuses the previous value where it can. */
final class CompositeReaders {
    private CompositeReaders() {}

    /**
     * A writer union: reads the branch index, then the branch (each branch resolved against the reader).
     *
     * <p>A value the union displaced (a string that became null, a record that became a string) is kept
     * as a spare and offered to the next read that has no old value, so a nullable field that goes null
     * and back costs no new {@code Utf8} or record. One node serves every element of an array of records,
     * so several values may be displaced per record: the spares are a stack of at most
     * {@value #MAX_SPARES}. Safe because a spare is referenced by nothing the decoder emits any more: every
     * caller stores the returned value where {@code reuse} was. This makes the node lane-confined, as the
     * whole tree is (compiled per lane's decoder).
     */
    static final class Union extends ValueReader {
        static final int MAX_SPARES = 64;

        private final ValueReader[] branches;
        private Object[] spares = new Object[1];
        private int spareCount;

        Union(ValueReader[] branches) {
            this.branches = branches;
        }

        @Override
        Object read(AvroCursor in, Object reuse) {
            int at = in.position();
            int index = in.readInt();
            ValueReader[] branches = this.branches;
            if (index < 0 || index >= branches.length) {
                throw new MalformedAvroException("union index " + index + " at byte " + at + " out of range for "
                        + branches.length + " branches");
            }
            if (reuse == null && spareCount > 0) {
                reuse = spares[--spareCount];
                spares[spareCount] = null;
            }
            Object value = branches[index].read(in, reuse);
            if (value != reuse && reuse != null) {
                keep(reuse);
            }
            return value;
        }

        private void keep(Object displaced) {
            if (spareCount == spares.length) {
                if (spareCount == MAX_SPARES) {
                    return;
                }
                spares = java.util.Arrays.copyOf(spares, spareCount * 2);
            }
            spares[spareCount++] = displaced;
        }
    }

    /** An enum: writer symbol index → the reader's symbol object (shared, immutable), or its default. */
    static final class Enum extends ValueReader {
        private final Object[] symbolsByWriterIndex;
        private final String[] writerSymbols;

        Enum(Object[] symbolsByWriterIndex, String[] writerSymbols) {
            this.symbolsByWriterIndex = symbolsByWriterIndex;
            this.writerSymbols = writerSymbols;
        }

        @Override
        Object read(AvroCursor in, Object reuse) {
            int at = in.position();
            int index = in.readInt();
            if (index < 0 || index >= symbolsByWriterIndex.length) {
                throw new MalformedAvroException("enum index " + index + " at byte " + at + " out of range for "
                        + symbolsByWriterIndex.length + " symbols");
            }
            Object symbol = symbolsByWriterIndex[index];
            if (symbol == null) {
                throw new MalformedAvroException("enum symbol " + writerSymbols[index]
                        + " is not in the reader schema, which has no default symbol");
            }
            return symbol;
        }
    }

    /** An array, reusing the old array and its elements ({@code GenericData.newArray}, {@code peek}). */
    static final class Array extends ValueReader {
        private final Schema schema;
        private final GenericData model;
        private final ValueReader elements;

        Array(Schema schema, GenericData model, ValueReader elements) {
            this.schema = schema;
            this.model = model;
            this.elements = elements;
        }

        @Override
        @SuppressWarnings("unchecked")
        Object read(AvroCursor in, Object reuse) {
            long count = in.blockCount(0);
            Object array = model.newArray(reuse, (int) Math.min(count, 1024), schema);
            Collection<Object> collection = (Collection<Object>) array;
            GenericArray<Object> generic = array instanceof GenericArray ? (GenericArray<Object>) array : null;
            ValueReader elements = this.elements;
            long total = 0;
            while (count != 0) {
                total += count;
                int from = in.mark();
                collection.add(elements.read(in, generic == null ? null : generic.peek()));
                in.zeroByteItems(from, count);
                for (long i = 1; i < count; i++) {
                    collection.add(elements.read(in, generic == null ? null : generic.peek()));
                }
                count = in.blockCount(total);
            }
            return array;
        }
    }

    /** A map with string keys ({@code Utf8}, or {@code String} when the schema asks), reusing the old map. */
    static final class MapReader extends ValueReader {
        private final GenericData model;
        private final boolean stringKeys;
        private final ValueReader values;

        MapReader(GenericData model, boolean stringKeys, ValueReader values) {
            this.model = model;
            this.stringKeys = stringKeys;
            this.values = values;
        }

        @Override
        @SuppressWarnings("unchecked")
        Object read(AvroCursor in, Object reuse) {
            long count = in.blockCount(0);
            Map<Object, Object> map = (Map<Object, Object>) model.newMap(reuse, (int) Math.min(count, 1024));
            long total = 0;
            // No items that take no bytes: every entry has a key (a length at least).
            while (count != 0) {
                total += count;
                for (long i = 0; i < count; i++) {
                    Object key = stringKeys ? in.readString() : in.readUtf8(null);
                    map.put(key, values.read(in, null));
                }
                count = in.blockCount(total);
            }
            return map;
        }
    }

    /** A fixed, into the old instance when it has the right class and size. */
    static final class Fixed extends ValueReader {
        private final Schema schema;
        private final GenericData model;
        private final int size;

        Fixed(Schema schema, GenericData model) {
            this.schema = schema;
            this.model = model;
            this.size = schema.getFixedSize();
        }

        @Override
        Object read(AvroCursor in, Object reuse) {
            GenericFixed fixed = (GenericFixed) model.createFixed(reuse, schema);
            in.readFixed(fixed.bytes(), size);
            return fixed;
        }
    }

    /** Bytes as a {@code ByteBuffer}, into the old buffer when it is large enough. */
    static final class Bytes extends ValueReader {
        @Override
        Object read(AvroCursor in, Object reuse) {
            return in.readBytes(reuse);
        }
    }
}
