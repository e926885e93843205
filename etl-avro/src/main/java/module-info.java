/**
 * The Avro connector: {@code AvroDeserializer} (Confluent wire format, single-object and raw
 * encodings), the schema-registry client, writer-to-reader resolution and the fast decoder. Its API
 * exposes Avro's own types ({@code Schema}, {@code GenericRecord}). {@code dev.etl.avro.binary} is the
 * low-level byte layer and {@code dev.etl.avro.container} the reader of object container files.
 */
module dev.etl.avro {
    requires transitive dev.etl.engine;
    requires transitive org.apache.avro;
    requires static transitive org.jspecify; // @NullMarked, @Nullable on the API; annotations only
    requires com.fasterxml.jackson.databind;
    requires java.net.http;
    requires org.slf4j;
    // zstandard blocks of container files, when the application has zstd-jni (an explicit module, so no
    // requires-automatic warning); optional: etl-s3 brings it, others add it if their files use zstd.
    requires static com.github.luben.zstd_jni;

    exports dev.etl.avro;
    exports dev.etl.avro.binary;
    exports dev.etl.avro.container;
}
