package dev.etl.autoconfigure.avro.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableRows;
import dev.etl.autoconfigure.clickhouse.ClickHouseTableSourceProperties;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroTableMapping;
import dev.etl.avro.clickhouse.AvroTableMappingException;
import dev.etl.clickhouse.ClickHouseColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.sink.KeyHashRouter;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
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

    AvroTableRowsFactory(SchemaRegistryClient registry, ClassLoader classLoader) {
        this.registry = registry;
        this.classLoader = classLoader;
    }

    @Override
    public ClickHouseTableSourceProperties.Format format() {
        return ClickHouseTableSourceProperties.Format.AVRO;
    }

    @Override
    public ClickHouseTableRows create(
            String property, ClickHouseTableSourceProperties from, ClickHouseTableSchema table) {
        Schema reader = readerSchema(property, from);
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
        AvroTableMapping mapping;
        try {
            mapping = builder.build();
        } catch (AvroTableMappingException ex) {
            throw new InvalidEtlConfigurationException(
                    describe(property, from, reader, ex),
                    "Map each listed column to a field with " + property + ".columns.<column>: <field path> (or a "
                            + "computed source), correct the names the message quotes, or give the column a DEFAULT "
                            + "in the table.");
        }
        AvroRowTranscoder.Builder transcoders = AvroRowTranscoder.confluent(mapping.rowMapping(), this.registry);
        boolean sharded = StringUtils.hasText(from.getShardKey());
        return new ClickHouseTableRows() {
            @Override
            public List<ClickHouseColumn> columns() {
                return mapping.rowMapping().columns();
            }

            @Override
            public Lane lane() {
                AvroRowTranscoder transcoder = transcoders.build();
                return new Lane(transcoder, sharded ? transcoder.shardKeyRouter() : KeyHashRouter.byRecordKey());
            }

            @Override
            public Map<String, String> sources() {
                return mapping.sources();
            }

            @Override
            public List<String> unstoredFields() {
                // The reader's fields no column reads, then those of newer writer schemas the reader lacks
                // (seen as records arrive): the gauge follows a producer that adds a field.
                Set<String> writerOnly = transcoders.unreadWriterFields();
                if (writerOnly.isEmpty()) {
                    return mapping.unstoredFields();
                }
                Set<String> all = new LinkedHashSet<>(mapping.unstoredFields());
                writerOnly.stream().sorted().forEach(all::add);
                return List.copyOf(all);
            }

            @Override
            public String toString() {
                return "Avro rows of " + from.getTopic() + " through " + reader.getFullName() + ": " + mapping;
            }
        };
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
        String subject = StringUtils.hasText(from.getSubject()) ? from.getSubject() : from.getTopic() + "-value";
        try {
            return this.registry.latest(subject).schema();
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
