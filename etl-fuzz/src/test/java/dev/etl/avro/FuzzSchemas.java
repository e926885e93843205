package dev.etl.avro;

/** The writer and reader schemas of {@link AvroDecoderFuzzTest}. */
final class FuzzSchemas {
    private FuzzSchemas() {}

    /** Every Avro type, nested, in unions, arrays and maps. */
    static final String EVENT = """
            {"type": "record", "name": "Event", "namespace": "fuzz", "fields": [
              {"name": "id", "type": "long"},
              {"name": "count", "type": "int"},
              {"name": "ratio", "type": "float"},
              {"name": "score", "type": "double"},
              {"name": "ok", "type": "boolean"},
              {"name": "name", "type": "string"},
              {"name": "payload", "type": "bytes"},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C", "D"]}},
              {"name": "note", "type": ["null", "string"]},
              {"name": "mixed", "type": ["int", "string", "null", {"type": "record", "name": "Point", "fields": [
                 {"name": "x", "type": "int"}, {"name": "y", "type": "double"}]}]},
              {"name": "points", "type": {"type": "array", "items": "Point"}},
              {"name": "ints", "type": {"type": "array", "items": "int"}},
              {"name": "labels", "type": {"type": "map", "values": {"type": "array", "items": "string"}}},
              {"name": "weights", "type": {"type": "map", "values": "double"}},
              {"name": "legacy", "type": {"type": "record", "name": "Legacy", "fields": [
                 {"name": "a", "type": ["null", "long"]},
                 {"name": "b", "type": {"type": "map", "values": "Point"}},
                 {"name": "c", "type": {"type": "array", "items": ["null", "Hash"]}},
                 {"name": "d", "type": "float"},
                 {"name": "e", "type": "double"},
                 {"name": "f", "type": "boolean"},
                 {"name": "g", "type": "Kind"},
                 {"name": "h", "type": "bytes"}]}},
              {"name": "small", "type": "int"},
              {"name": "big", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "old_title", "type": "string"},
              {"name": "parent", "type": ["null", "Point"]}
            ]}""";

    /**
     * A reader of {@link #EVENT}: removed fields of every type ({@code payload}, {@code legacy}: the
     * AvroSkipper), added fields with defaults, promotions (int→long, long→double, float→double, int→double,
     * string→bytes), an alias, an enum symbol removed (reader default), a reordered reader union.
     */
    static final String EVENT_READER = """
            {"type": "record", "name": "Event", "namespace": "fuzz", "fields": [
              {"name": "id", "type": "long"},
              {"name": "count", "type": "long"},
              {"name": "ratio", "type": "double"},
              {"name": "score", "type": "double"},
              {"name": "ok", "type": "boolean"},
              {"name": "name", "type": "bytes"},
              {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C", "Z"], "default": "Z"}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "mixed", "type": ["null", {"type": "record", "name": "Point", "fields": [
                 {"name": "x", "type": "long"}, {"name": "y", "type": "double"},
                 {"name": "z", "type": "int", "default": 7}]}, "string", "long"]},
              {"name": "points", "type": {"type": "array", "items": "Point"}},
              {"name": "ints", "type": {"type": "array", "items": "long"}},
              {"name": "labels", "type": {"type": "map", "values": {"type": "array", "items": "string"}}},
              {"name": "weights", "type": {"type": "map", "values": "double"}},
              {"name": "small", "type": "double"},
              {"name": "big", "type": "double"},
              {"name": "f", "type": "double"},
              {"name": "title", "type": "string", "aliases": ["old_title"]},
              {"name": "parent", "type": ["null", "Point"]},
              {"name": "added_string", "type": "string", "default": "none"},
              {"name": "added_array", "type": {"type": "array", "items": "int"}, "default": [1, 2]},
              {"name": "added_int", "type": "int", "default": 42}
            ]}""";

    /** Collections whose items take no bytes: a count alone stands for any number of them. */
    static final String ZERO = """
            {"type": "record", "name": "Zero", "namespace": "fuzz", "fields": [
              {"name": "id", "type": "int"},
              {"name": "nulls", "type": {"type": "array", "items": "null"}},
              {"name": "empties", "type": {"type": "array", "items":
                 {"type": "record", "name": "Empty", "fields": []}}},
              {"name": "nested", "type": {"type": "array", "items": {"type": "array", "items": "null"}}},
              {"name": "nullMap", "type": {"type": "map", "values": "null"}},
              {"name": "tail", "type": "string"}
            ]}""";

    /** A reader of {@link #ZERO} that removes every collection: the AvroSkipper walks them. */
    static final String ZERO_DROPPED = """
            {"type": "record", "name": "Zero", "namespace": "fuzz", "fields": [
              {"name": "id", "type": "int"},
              {"name": "tail", "type": "string"}
            ]}""";

    /** A recursive writer record: the reader drops the recursive field, so the AvroSkipper recurses. */
    static final String NODE = """
            {"type": "record", "name": "Node", "namespace": "fuzz", "fields": [
              {"name": "value", "type": "long"},
              {"name": "next", "type": ["null", "Node"]},
              {"name": "children", "type": {"type": "array", "items": "Node"}},
              {"name": "label", "type": "string"}
            ]}""";

    static final String NODE_READER = """
            {"type": "record", "name": "Node", "namespace": "fuzz", "fields": [
              {"name": "value", "type": "long"},
              {"name": "label", "type": "string"}
            ]}""";

    /** Strings read as java.lang.String (avro.java.string), as map keys too. */
    static final String STRINGS = """
            {"type": "record", "name": "Strings", "namespace": "fuzz", "fields": [
              {"name": "s", "type": {"type": "string", "avro.java.string": "String"}},
              {"name": "m", "type": {"type": "map", "values": "int", "avro.java.string": "String"}},
              {"name": "u", "type": ["null", {"type": "string", "avro.java.string": "String"}, "bytes"]},
              {"name": "big", "type": {"type": "fixed", "name": "Big", "size": 33}}
            ]}""";
}
