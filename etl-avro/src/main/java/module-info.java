/**
 * The Avro connector: {@code AvroDeserializer} (Confluent wire format, single-object and raw
 * encodings), the schema-registry client, writer-to-reader resolution and the fast decoder. Its API
 * exposes Avro's own types ({@code Schema}, {@code GenericRecord}).
 */
module dev.etl.avro {
    requires transitive dev.etl.engine;
    requires transitive org.apache.avro;
    requires static transitive org.jspecify; // @NullMarked, @Nullable on the API; annotations only
    requires com.fasterxml.jackson.databind;
    requires java.net.http;
    requires org.slf4j;

    exports dev.etl.avro;
    exports dev.etl.avro.binary;
}
