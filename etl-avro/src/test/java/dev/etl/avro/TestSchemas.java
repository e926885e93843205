package dev.etl.avro;

import org.apache.avro.Schema;

/** Schemas the Avro tests share: a rich writer schema and an evolved reader of it. */
final class TestSchemas {
    private TestSchemas() {}

    static Schema parse(String json) {
        return new Schema.Parser().parse(json);
    }

    /** Every Avro type, nested; version 1 of "Event". */
    static final String EVENT_V1 = """
            {"type": "record", "name": "Event", "namespace": "dev.etl.avro.test", "fields": [
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
                 {"name": "c", "type": {"type": "array", "items": ["null", "Hash"]}}]}},
              {"name": "small", "type": "int"},
              {"name": "big", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "old_title", "type": "string"},
              {"name": "parent", "type": ["null", "Point"]}
            ]}""";

    /**
     * Version 2 as a reader of version 1: removed fields ({@code payload}, {@code legacy}), added
     * fields with defaults, promotions (int→long, long→double, float→double, int→double), a field
     * renamed through an alias, an enum symbol removed (reader default), a reordered reader union.
     */
    static final String EVENT_V2_READER = """
            {"type": "record", "name": "Event", "namespace": "dev.etl.avro.test", "fields": [
              {"name": "id", "type": "long"},
              {"name": "count", "type": "long"},
              {"name": "ratio", "type": "double"},
              {"name": "score", "type": "double"},
              {"name": "ok", "type": "boolean"},
              {"name": "name", "type": "string"},
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
              {"name": "added_point", "type": ["null", "Point"], "default": null},
              {"name": "added_int", "type": "int", "default": 42}
            ]}""";
}
