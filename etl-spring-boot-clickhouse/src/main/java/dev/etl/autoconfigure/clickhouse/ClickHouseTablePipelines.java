package dev.etl.autoconfigure.clickhouse;

import dev.etl.autoconfigure.InvalidEtlConfigurationException;
import dev.etl.clickhouse.ClickHouseSinkConfig;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.deser.Deserializer;
import dev.etl.ops.Branch;
import dev.etl.ops.ChainBuilder;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The pipelines of the tables that say where their rows come from ({@code etl.sink.clickhouse.from.*},
 * {@code tables.<name>.from.*}): per table, its columns read from the server, the rows derived by the
 * format's {@link ClickHouseTableRows.Factory} (logged, with the fields the table does not store); per
 * topic, one {@link ChainFactory} (defined by {@link ClickHouseTablesRegistrar}) that writes each payload to
 * every table reading that topic.
 */
final class ClickHouseTablePipelines implements DisposableBean {

    private static final Logger logger = LoggerFactory.getLogger(ClickHouseTablePipelines.class);

    static final String BEAN = "etlClickHouseTablePipelines";

    static final String SINGLE = "etl.sink.clickhouse";

    /** How the table sink's and the named tables' columns are read (a server; a fixed schema in tests). */
    @FunctionalInterface
    interface SchemaReader {
        ClickHouseTableSchema read(ClickHouseSinkConfig config);
    }

    private final EtlClickHouseProperties clickHouse;

    private final Environment environment;

    private final ObjectProvider<ClickHouseSinkConfig> singleConfig;

    private final ObjectProvider<ClickHouseTables> tables;

    private final ObjectProvider<ClickHouseTableRows.Factory> factories;

    private final ObjectProvider<MeterRegistry> registries;

    private final SchemaReader schemas;

    private final Map<String, ClickHouseTableRows> rows = new LinkedHashMap<>();

    ClickHouseTablePipelines(
            EtlClickHouseProperties clickHouse,
            Environment environment,
            ObjectProvider<ClickHouseSinkConfig> singleConfig,
            ObjectProvider<ClickHouseTables> tables,
            ObjectProvider<ClickHouseTableRows.Factory> factories,
            ObjectProvider<MeterRegistry> registries,
            SchemaReader schemas) {
        this.clickHouse = clickHouse;
        this.environment = environment;
        this.singleConfig = singleConfig;
        this.tables = tables;
        this.factories = factories;
        this.registries = registries;
        this.schemas = schemas;
    }

    /**
     * The topics the tables read, each with its tables' sink names in declaration order (the {@code table}
     * sink first), from the environment (for bean definitions, before the properties are bound).
     */
    static Map<String, List<String>> topics(Environment environment) {
        Binder binder = Binder.get(environment);
        Map<String, List<String>> topics = new LinkedHashMap<>();
        String single = binder.bind(SINGLE + ".from.topic", String.class).orElse(null);
        if (single != null && !single.isBlank()) {
            String name = binder.bind(SINGLE + ".name", String.class).orElse("clickhouse");
            topics.computeIfAbsent(single.trim(), (key) -> new ArrayList<>()).add(name);
        }
        for (String name : ClickHouseTablesRegistrar.names(environment)) {
            String topic = binder.bind(ClickHouseTablesRegistrar.TABLES + "[" + name + "].from.topic", String.class)
                    .orElse(null);
            if (topic != null && !topic.isBlank()) {
                topics.computeIfAbsent(topic.trim(), (key) -> new ArrayList<>()).add(name);
            }
        }
        return topics;
    }

    /** The rows of sink {@code sink} when its table has a {@code from}, else null. */
    synchronized ClickHouseTableRows rows(String sink) {
        ClickHouseTableRows known = this.rows.get(sink);
        if (known != null) {
            return known;
        }
        ClickHouseTableSourceProperties from;
        String property;
        ClickHouseSinkConfig config;
        if (sink.equals(this.clickHouse.getName()) && this.clickHouse.getFrom().isConfigured()) {
            from = this.clickHouse.getFrom();
            property = SINGLE + ".from";
            config = this.singleConfig.getObject();
        } else {
            ClickHouseTableProperties table = this.clickHouse.getTables().get(sink);
            if (table == null || !table.getFrom().isConfigured()) {
                return null;
            }
            from = table.getFrom();
            property = ClickHouseTablesRegistrar.TABLES + "." + sink + ".from";
            config = this.tables.getObject().config(sink);
        }
        ClickHouseTableRows derived = derive(sink, property, from, config);
        this.rows.put(sink, derived);
        return derived;
    }

    private ClickHouseTableRows derive(
            String sink, String property, ClickHouseTableSourceProperties from, ClickHouseSinkConfig config) {
        ClickHouseTableRows.Factory factory = this.factories
                .orderedStream()
                .filter((candidate) -> candidate.format() == from.getFormat())
                .findFirst()
                .orElseThrow(() -> new InvalidEtlConfigurationException(
                        property + ".format=" + from.getFormat().name().toLowerCase() + " (topic " + from.getTopic()
                                + ", table " + config.qualifiedTable() + ") has nothing to read it with.",
                        (from.getFormat() == ClickHouseTableSourceProperties.Format.AVRO)
                                ? "Add dev.etl:etl-avro-clickhouse and dev.etl:etl-spring-boot-avro-clickhouse (the "
                                        + "starter has them) and set etl.avro.registry.url."
                                : "Add dev.etl:etl-json-clickhouse and dev.etl:etl-spring-boot-json-clickhouse."));
        if (from.getAutoEvolve().isEnabled() && from.getFormat() != ClickHouseTableSourceProperties.Format.AVRO) {
            throw new InvalidEtlConfigurationException(
                    property + ".auto-evolve.enabled=true, but " + property + ".format="
                            + from.getFormat().name().toLowerCase()
                            + ": auto-evolve follows an Avro subject's latest schema in the registry.",
                    "Set " + property + ".auto-evolve.enabled=false (JSON topics have no schema to follow).");
        }
        ClickHouseTableSchema table = this.schemas.read(config);
        ClickHouseTableRows derived = factory.create(property, from, table, config);
        log(sink, from, config, derived);
        MeterRegistry registry = this.registries.getIfUnique();
        if (registry != null) {
            Gauge.builder(
                            "etl.sink.unstored.fields",
                            derived,
                            (rows) -> rows.unstoredFields().size())
                    .description("Fields of the topic's records that no column of the table stores")
                    .tag("sink", sink)
                    .register(registry);
        }
        return derived;
    }

    /** Stops the rows' watches (auto-evolve). */
    @Override
    public synchronized void destroy() {
        this.rows.values().forEach(ClickHouseTableRows::close);
    }

    private static void log(
            String sink, ClickHouseTableSourceProperties from, ClickHouseSinkConfig config, ClickHouseTableRows rows) {
        String mapping = rows.sources().entrySet().stream()
                .map((entry) -> entry.getKey() + " ← " + entry.getValue())
                .collect(Collectors.joining(", "));
        logger.info(
                "ClickHouse sink '{}' ({}) reads topic {} ({}): {}",
                sink,
                config.qualifiedTable(),
                from.getTopic(),
                from.getFormat().name().toLowerCase(),
                mapping);
        if (!rows.unstoredFields().isEmpty()) {
            logger.warn(
                    "ClickHouse sink '{}' ({}): the table stores no column for {} field(s) of topic {}: {}",
                    sink,
                    config.qualifiedTable(),
                    rows.unstoredFields().size(),
                    from.getTopic(),
                    rows.unstoredFields());
        }
    }

    /**
     * The chain factory of {@code topic}: payloads, tombstones dropped, written by each table's encoder to
     * its sink (a fan-out when several tables read the topic).
     */
    ChainFactory chainFactory(String topic) {
        List<String> sinks = topics(this.environment).get(topic);
        if (sinks == null) {
            throw new IllegalStateException("no table reads topic " + topic);
        }
        checkSubscribed(topic, sinks);
        Map<String, ClickHouseTableRows> tables = new LinkedHashMap<>();
        for (String sink : sinks) {
            tables.put(sink, rows(sink));
        }
        return ChainFactory.forTopics(Set.of(topic), (context) -> {
            ChainBuilder<Payload> payloads =
                    Chains.from(context, Deserializer.payload()).filter("not-tombstone", Payload::isPresent);
            List<Branch<Payload>> branches = new ArrayList<>();
            for (Map.Entry<String, ClickHouseTableRows> table : tables.entrySet()) {
                ClickHouseTableRows.Lane lane = table.getValue().lane();
                branches.add((branch) -> branch.sink(table.getKey(), lane.encoder(), lane.router()));
            }
            if (branches.size() == 1) {
                return branches.get(0).build(payloads);
            }
            @SuppressWarnings("unchecked")
            Branch<Payload>[] all = branches.toArray(new Branch[0]);
            return payloads.fanOut("tables", all);
        });
    }

    /** With {@code etl.source.kafka.topics} set, every table's topic must be one of them. */
    private void checkSubscribed(String topic, List<String> sinks) {
        Binder binder = Binder.get(this.environment);
        List<String> subscribed = binder.bind("etl.source.kafka.topics", Bindable.listOf(String.class))
                .orElse(List.of());
        String pattern = binder.bind("etl.source.kafka.pattern", String.class).orElse(null);
        if (subscribed.isEmpty() || (pattern != null && !pattern.isBlank()) || subscribed.contains(topic)) {
            return;
        }
        Function<String, String> property = (sink) -> sink.equals(this.clickHouse.getName())
                        && this.clickHouse.getFrom().isConfigured()
                ? SINGLE + ".from.topic"
                : ClickHouseTablesRegistrar.TABLES + "." + sink + ".from.topic";
        Set<String> properties = new LinkedHashSet<>();
        sinks.forEach((sink) -> properties.add(property.apply(sink)));
        throw new InvalidEtlConfigurationException(
                String.join(", ", properties) + " names topic " + topic + ", but etl.source.kafka.topics " + subscribed
                        + " does not subscribe to it.",
                "Add " + topic + " to etl.source.kafka.topics, or leave etl.source.kafka.topics unset: the "
                        + "tables' topics are then the source's topics.");
    }
}
