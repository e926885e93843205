package dev.etl.autoconfigure.avro.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableSourceProperties;
import dev.etl.avro.RegisteredSchema;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroTableMapping;
import dev.etl.avro.clickhouse.AvroTableMappingException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseHttpTransport;
import dev.etl.clickhouse.ClickHouseRequestException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableAlter;
import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnLayouts;
import dev.etl.sink.KeyHashRouter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.io.Resource;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The rows of a table whose {@code from.format} is {@code avro}: the reader schema ({@code schema}, {@code
 * schema-class}, or the latest schema of {@code subject}, by default {@code <topic>-value}), the mapping
 * derived from it and the table by column name ({@link AvroTableMapping}, with {@code from.*}'s overrides),
 * and a transcoder per lane over the registry (Confluent framing), routed by its shard key when
 * {@code shard-key} is set, else by the record's key.
 */
final class AvroTableRowsFactory implements ClickHouseTableRows.Factory {

    private static final Pattern SOURCE = Pattern.compile("^source\\('([^']*)', '(.*?)'\\)");

    private static final Pattern INDEX = Pattern.compile("^index\\('([^']*)'\\)");

    private static final Pattern EXPLODE = Pattern.compile("^explode\\('([^']*)'\\)");

    private final SchemaRegistryClient registry;

    private final ClassLoader classLoader;

    private final ObjectProvider<MeterRegistry> meters;

    AvroTableRowsFactory(SchemaRegistryClient registry, ClassLoader classLoader, ObjectProvider<MeterRegistry> meters) {
        this.registry = registry;
        this.classLoader = classLoader;
        this.meters = meters;
    }

    @Override
    public ClickHouseTableSourceProperties.Format format() {
        return ClickHouseTableSourceProperties.Format.AVRO;
    }

    @Override
    public ClickHouseTableRows create(
            String property, ClickHouseTableSourceProperties from, ClickHouseTableSchema table) {
        return create(property, from, table, null);
    }

    @Override
    public ClickHouseTableRows create(
            String property,
            ClickHouseTableSourceProperties from,
            ClickHouseTableSchema table,
            @Nullable ClickHouseSinkConfig config) {
        ClickHouseTableSourceProperties.AutoEvolve autoEvolve = from.getAutoEvolve();
        if (autoEvolve.isEnabled() && (from.getSchema() != null || StringUtils.hasText(from.getSchemaClass()))) {
            throw new InvalidEtlConfigurationException(
                    property + ".auto-evolve.enabled=true follows the subject's latest schema in the registry, but "
                            + property + "." + (from.getSchema() != null ? "schema" : "schema-class")
                            + " fixes the reader schema.",
                    "Remove " + property + ".schema/.schema-class (the reader is then the latest schema of "
                            + property + ".subject, by default <topic>-value), or set "
                            + property + ".auto-evolve.enabled=false.");
        }
        if (autoEvolve.isEnabled() && config == null) {
            throw new IllegalStateException(property + ".auto-evolve needs the table's sink configuration");
        }
        RegisteredSchema registered = null;
        Schema reader;
        if (autoEvolve.isEnabled()) {
            registered = latest(property, from);
            reader = registered.schema();
        } else {
            reader = readerSchema(property, from);
        }
        AvroTableMapping mapping = mapping(property, from, reader, table);
        AvroRowTranscoder.Builder transcoders = AvroRowTranscoder.confluent(mapping.rowMapping(), this.registry);
        boolean sharded = StringUtils.hasText(from.getShardKey());
        if (!autoEvolve.isEnabled()) {
            return new AvroTableRows(from, reader, () -> mapping, transcoders, sharded, null, null);
        }
        ColumnLayouts layouts = ColumnLayouts.of(mapping.rowMapping().columns());
        MeterRegistry meters = this.meters.getIfUnique();
        String sink = sinkName(property);
        AvroSchemaWatch watch = new AvroSchemaWatch(
                sink,
                subject(from),
                from.getExplode(),
                registered,
                mapping,
                this.registry,
                new ServerTable(config, autoEvolve),
                (next, evolved) -> mapping(property, from, next, evolved),
                layouts,
                transcoders,
                (meters != null) ? meters : new SimpleMeterRegistry());
        watch.start(autoEvolve.getInterval());
        return new AvroTableRows(from, reader, watch::mapping, transcoders, sharded, layouts, watch);
    }

    /** {@code etl.sink.clickhouse.tables.refunds.from} → refunds; {@code etl.sink.clickhouse.from} → clickhouse. */
    private static String sinkName(String property) {
        String prefix = "etl.sink.clickhouse.tables.";
        if (property.startsWith(prefix)) {
            return property.substring(prefix.length(), property.length() - ".from".length());
        }
        return "clickhouse";
    }

    private static String subject(ClickHouseTableSourceProperties from) {
        return StringUtils.hasText(from.getSubject()) ? from.getSubject() : from.getTopic() + "-value";
    }

    /** The mapping of {@code table} from {@code reader} with {@code from}'s overrides, or one message for every mistake. */
    static AvroTableMapping mapping(
            String property, ClickHouseTableSourceProperties from, Schema reader, ClickHouseTableSchema table) {
        AvroTableMapping.Builder builder = AvroTableMapping.derive(reader, table);
        from.getColumns().forEach(builder::source);
        if (StringUtils.hasText(from.getExplode())) {
            builder.explode(from.getExplode());
        }
        if (StringUtils.hasText(from.getIndex())) {
            builder.index(from.getIndex());
        }
        from.getDropWhen().forEach((field, values) -> builder.dropWhen(field, values.toArray()));
        from.getKeepWhen().forEach((field, values) -> builder.keepWhen(field, values.toArray()));
        if (StringUtils.hasText(from.getShardKey())) {
            builder.shardKey(from.getShardKey());
        }
        try {
            return builder.build();
        } catch (AvroTableMappingException ex) {
            throw new InvalidEtlConfigurationException(
                    describe(property, from, reader, ex),
                    "Map each listed column to a field with " + property + ".columns.<column>: <field path> (or a "
                            + "computed source), correct the names the message quotes, or give the column a DEFAULT "
                            + "in the table.");
        }
    }

    /**
     * The rows of one table: the lanes' transcoders over the mapping the supplier gives (the first one, or with
     * auto-evolve the latest published), and the layouts and watch when it evolves.
     */
    private record AvroTableRows(
            ClickHouseTableSourceProperties from,
            Schema reader,
            Supplier<AvroTableMapping> mapping,
            AvroRowTranscoder.Builder transcoders,
            boolean sharded,
            @Nullable ColumnLayouts layouts,
            @Nullable AvroSchemaWatch watch)
            implements ClickHouseTableRows {

        @Override
        public List<ClickHouseColumn> columns() {
            // The first layout's: the sink is validated against it; later layouts come from the watch.
            return (this.layouts != null)
                    ? this.layouts.columns(0)
                    : this.mapping.get().rowMapping().columns();
        }

        @Override
        public Lane lane() {
            AvroRowTranscoder transcoder = this.transcoders.build();
            return new Lane(transcoder, this.sharded ? transcoder.shardKeyRouter() : KeyHashRouter.byRecordKey());
        }

        @Override
        public Map<String, String> sources() {
            return this.mapping.get().sources();
        }

        @Override
        public List<String> unstoredFields() {
            // The reader's fields no column reads, then those of newer writer schemas the reader lacks
            // (seen as records arrive): the gauge follows a producer that adds a field, and goes down when
            // auto-evolve adds its column.
            AvroTableMapping current = this.mapping.get();
            Set<String> writerOnly = this.transcoders.unreadWriterFields();
            if (writerOnly.isEmpty()) {
                return current.unstoredFields();
            }
            Set<String> all = new LinkedHashSet<>(current.unstoredFields());
            writerOnly.stream().sorted().forEach(all::add);
            return List.copyOf(all);
        }

        @Override
        public @Nullable ColumnLayouts layouts() {
            return this.layouts;
        }

        @Override
        public void close() {
            if (this.watch != null) {
                this.watch.close();
            }
        }

        @Override
        public String toString() {
            return "Avro rows of " + this.from.getTopic() + " through " + this.reader.getFullName() + ": "
                    + this.mapping.get();
        }
    }

    /** The table of a sink configuration, reached over HTTP with its credentials (a transport per call). */
    private record ServerTable(ClickHouseSinkConfig config, ClickHouseTableSourceProperties.AutoEvolve evolve)
            implements AvroSchemaWatch.Table {

        @Override
        public ClickHouseTableSchema read() {
            return ClickHouseTableSchema.read(this.config);
        }

        @Override
        public String version() {
            try (ClickHouseHttpTransport transport = ClickHouseHttpTransport.of(this.config)) {
                ClickHouseRequestException last = null;
                for (List<URI> shard : this.config.shards()) {
                    for (URI replica : shard) {
                        try {
                            return transport
                                    .query(replica, "SELECT version() FORMAT TabSeparated")
                                    .strip();
                        } catch (ClickHouseRequestException ex) {
                            last = ex;
                        }
                    }
                }
                throw new IllegalStateException(
                        "no replica of " + this.config.qualifiedTable() + " answered SELECT version(): "
                                + ((last != null) ? last.getMessage() : "none configured"),
                        last);
            }
        }

        @Override
        public void add(List<NewColumn> columns) {
            try (ClickHouseHttpTransport transport = ClickHouseHttpTransport.of(this.config)) {
                new ClickHouseTableAlter(
                                this.config,
                                transport,
                                this.evolve.getCluster(),
                                this.evolve.getDistributedTable(),
                                this.evolve.getTimeout())
                        .add(columns);
            }
        }

        @Override
        public String name() {
            return this.config.qualifiedTable();
        }
    }

    /** The mapping's problems, each naming the property it comes from where one does. */
    static String describe(
            String property, ClickHouseTableSourceProperties from, Schema reader, AvroTableMappingException ex) {
        StringBuilder message = new StringBuilder(property)
                .append(": the columns of the table cannot be derived from topic ")
                .append(from.getTopic())
                .append("'s reader schema ")
                .append(reader.getFullName())
                .append(" (")
                .append(ex.problems().size())
                .append(ex.problems().size() == 1 ? " problem):" : " problems):");
        for (String problem : ex.problems()) {
            message.append("\n  - ").append(named(property, problem));
        }
        message.append("\nreader fields no column stores: ")
                .append(ex.unstoredFields().isEmpty() ? "none" : String.join(", ", ex.unstoredFields()));
        return message.toString();
    }

    /** A problem of the builder's calls in the words of the properties ({@code source('x', 'y')} → {@code columns.x=y}). */
    private static String named(String property, String problem) {
        Matcher source = SOURCE.matcher(problem);
        if (source.find()) {
            return property + ".columns." + source.group(1) + "=" + source.group(2) + problem.substring(source.end());
        }
        Matcher index = INDEX.matcher(problem);
        if (index.find()) {
            return property + ".index=" + index.group(1) + problem.substring(index.end());
        }
        Matcher explode = EXPLODE.matcher(problem);
        if (explode.find()) {
            return property + ".explode=" + explode.group(1) + problem.substring(explode.end());
        }
        return problem;
    }

    private Schema readerSchema(String property, ClickHouseTableSourceProperties from) {
        Resource resource = from.getSchema();
        if (resource != null) {
            try (InputStream in = resource.getInputStream()) {
                return new Schema.Parser().parse(in);
            } catch (IOException | RuntimeException ex) {
                throw new InvalidEtlConfigurationException(
                        property + ".schema (" + resource.getDescription() + ") cannot be read as an Avro schema: "
                                + ex.getMessage(),
                        "Point " + property + ".schema at an .avsc file (e.g. classpath:order.avsc).");
            }
        }
        String type = from.getSchemaClass();
        if (StringUtils.hasText(type)) {
            try {
                Class<?> record = ClassUtils.forName(type, this.classLoader);
                return (Schema) record.getMethod("getClassSchema").invoke(null);
            } catch (ReflectiveOperationException | LinkageError | ClassCastException ex) {
                throw new InvalidEtlConfigurationException(
                        property + ".schema-class=" + type + " is not a generated Avro class on the class path (" + ex
                                + ").",
                        "Name a SpecificRecord class generated by the Avro compiler (it has a static "
                                + "getClassSchema()), or use " + property + ".schema or .subject.");
            }
        }
        return latest(property, from).schema();
    }

    private RegisteredSchema latest(String property, ClickHouseTableSourceProperties from) {
        String subject = subject(from);
        try {
            return this.registry.latest(subject);
        } catch (RuntimeException ex) {
            throw new InvalidEtlConfigurationException(
                    "The Avro reader schema of " + property + " is the latest schema of subject " + subject
                            + (StringUtils.hasText(from.getSubject())
                                    ? " (" + property + ".subject)"
                                    : " (<topic>-value)")
                            + " in the registry at " + this.registry.baseUrl() + ", which cannot be read: "
                            + ex.getMessage(),
                    "Register the topic's schema under " + subject + ", set " + property + ".subject to the subject "
                            + "that has it, or give the schema with " + property + ".schema or .schema-class.");
        }
    }
}
