/**
 * The load-generator connector: {@code DatagenSource} (bounded or rate-limited synthetic records, an
 * in-memory committed watermark per partition), the {@code RecordGenerator} function it calls, and
 * {@code AvroRecordGenerator} (random records of an Avro schema, reproducible by seed). Avro is optional:
 * only {@code AvroRecordGenerator} needs it, and its API exposes Avro's {@code Schema}.
 */
module dev.etl.datagen {
    requires transitive dev.etl.engine;
    requires static transitive org.apache.avro;
    requires static transitive org.jspecify; // @NullMarked, @Nullable on the API; annotations only
    requires org.slf4j;

    exports dev.etl.datagen;
}
