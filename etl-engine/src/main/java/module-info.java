/**
 * The etl engine: lanes, operator chains, acks and checkpointing, backpressure, the sink runtime, and
 * the SPIs connectors implement. Exports its API packages only; {@code dev.etl.internal.*} is not
 * exported. {@code MeterRegistry} (Micrometer) is the one third-party type in its API.
 */
module dev.etl.engine {
    requires transitive micrometer.core;
    requires static transitive org.jspecify; // @NullMarked, @Nullable on the API; annotations only
    requires transitive java.net.http; // dev.etl.http.BoundedHttpBody (in its API), for the connectors that speak HTTP
    requires org.agrona;
    requires org.slf4j;

    exports dev.etl.deser;
    exports dev.etl.error;
    exports dev.etl.http;
    exports dev.etl.ops;
    exports dev.etl.pipeline;
    exports dev.etl.record;
    exports dev.etl.sink;
    exports dev.etl.source;
}
