package dev.etl.autoconfigure.avro.clickhouse;

import dev.etl.avro.RegisteredSchema;
import dev.etl.avro.SchemaRegistryClient;
import dev.etl.avro.clickhouse.AvroColumnTypes;
import dev.etl.avro.clickhouse.AvroRowTranscoder;
import dev.etl.avro.clickhouse.AvroTableEvolution;
import dev.etl.avro.clickhouse.AvroTableMapping;
import dev.etl.clickhouse.ClickHouseTableAlter.NewColumn;
import dev.etl.clickhouse.ClickHouseTableSchema;
import dev.etl.clickhouse.ColumnLayouts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Auto-evolve of one table ({@code from.auto-evolve.enabled}): every {@code interval} a daemon thread
 * ({@code etl-auto-evolve-<sink>}) asks the registry for the subject's latest schema; a new version with new
 * fields becomes columns ({@link AvroTableEvolution}), checked first by deriving the new mapping against the
 * table as it will be, then added on every replica ({@link Table#add}, which returns once every replica shows
 * them), then the mapping is derived from the new reader and the table as the server now describes it, its
 * columns registered as a new {@link ColumnLayouts layout}, and published to the lanes
 * ({@link AvroRowTranscoder.Builder#evolve}): each seals its blocks of the old layout and switches.
 *
 * <p>A failure (the registry or a replica unreachable, no ALTER right, the replicas slower than the timeout, a
 * mapping that cannot be derived) is logged with what failed, counted, and tried again at the next tick; the
 * lanes keep the old mapping meanwhile, so the new fields stay counted as unstored. Fields that cannot be added
 * (no column type, a type change, a removal) are logged and counted once per schema version. Metrics (tag
 * {@code sink}): {@code etl.sink.evolutions} (applied), {@code etl.sink.evolution.refused.fields} (tag
 * {@code reason}), {@code etl.sink.evolution.failures}.
 *
 * <p>{@link #tick()} runs on the watch's thread only (or a test's), one at a time.
 */
final class AvroSchemaWatch implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(AvroSchemaWatch.class);

    /** The table as the watch reaches it: its columns, its server's version, the ALTER. */
    interface Table {
        /** The table's columns as a replica describes them. */
        ClickHouseTableSchema read();

        /** The server's {@code SELECT version()}. */
        String version();

        /** Adds the columns on every replica and returns when every replica shows them. */
        void add(List<NewColumn> columns);

        /** {@code database.table}, for the logs. */
        String name();
    }

    private final String sink;
    private final String subject;
    private final @Nullable String explode;
    private final SchemaRegistryClient registry;
    private final Table table;
    private final BiFunction<Schema, ClickHouseTableSchema, AvroTableMapping> derive;
    private final ColumnLayouts layouts;
    private final AvroRowTranscoder.Builder transcoders;
    private final MeterRegistry meters;
    private final Counter evolutions;
    private final Counter failures;

    private Schema reader;
    private int version;
    private volatile AvroTableMapping mapping;
    private volatile @Nullable ScheduledExecutorService executor;

    AvroSchemaWatch(
            String sink,
            String subject,
            @Nullable String explode,
            RegisteredSchema current,
            AvroTableMapping mapping,
            SchemaRegistryClient registry,
            Table table,
            BiFunction<Schema, ClickHouseTableSchema, AvroTableMapping> derive,
            ColumnLayouts layouts,
            AvroRowTranscoder.Builder transcoders,
            MeterRegistry meters) {
        this.sink = sink;
        this.subject = subject;
        this.explode = explode;
        this.reader = current.schema();
        this.version = current.version();
        this.mapping = mapping;
        this.registry = registry;
        this.table = table;
        this.derive = derive;
        this.layouts = layouts;
        this.transcoders = transcoders;
        this.meters = meters;
        this.evolutions = Counter.builder("etl.sink.evolutions")
                .description("Schema evolutions applied: columns added and the mapping switched")
                .tag("sink", sink)
                .register(meters);
        this.failures = Counter.builder("etl.sink.evolution.failures")
                .description("Schema evolutions that failed (retried at the next interval)")
                .tag("sink", sink)
                .register(meters);
    }

    /** The mapping the lanes write (or are switching to). */
    AvroTableMapping mapping() {
        return this.mapping;
    }

    /** Starts the daemon thread that calls {@link #tick()} every {@code interval}. */
    synchronized void start(Duration interval) {
        if (this.executor != null) {
            return;
        }
        this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
            Thread thread = new Thread(task, "etl-auto-evolve-" + this.sink);
            thread.setDaemon(true);
            return thread;
        });
        long ms = Math.max(1, interval.toMillis());
        this.executor.scheduleWithFixedDelay(this::tick, ms, ms, TimeUnit.MILLISECONDS);
        this.transcoders.onUnreadWriterFields(this::wake);
    }

    /**
     * A lane met a writer schema with fields the reader lacks: look at the subject now rather than at the next
     * interval (records of that schema are written without the new fields until the lanes switch). Called on
     * the lane's thread: only hands the tick to the watch's own thread.
     */
    void wake() {
        ScheduledExecutorService running = this.executor;
        if (running == null) {
            return;
        }
        try {
            running.execute(this::tick);
        } catch (RejectedExecutionException closed) {
            // closed meanwhile: nothing to look at
        }
    }

    @Override
    public synchronized void close() {
        this.transcoders.onUnreadWriterFields(null);
        if (this.executor != null) {
            this.executor.shutdownNow();
            this.executor = null;
        }
    }

    /**
     * One look at the subject: nothing when its latest version is the one seen, else the evolution. Never
     * throws (a scheduled task that throws stops): a failure is logged and counted.
     *
     * @return whether a new mapping was published
     */
    boolean tick() {
        try {
            return evolve();
        } catch (RuntimeException ex) {
            this.failures.increment();
            logger.warn(
                    "ClickHouse sink '{}' ({}): auto-evolve failed, the pipeline keeps its mapping and tries again at "
                            + "the next interval: {}",
                    this.sink,
                    this.table.name(),
                    ex.getMessage());
            return false;
        }
    }

    private boolean evolve() {
        RegisteredSchema latest = this.registry.latest(this.subject);
        if (latest.version() == this.version) {
            return false;
        }
        Schema next = latest.schema();
        ClickHouseTableSchema before = this.table.read();
        AvroColumnTypes.Server server = AvroColumnTypes.Server.of(this.table.version());
        AvroTableEvolution plan = AvroTableEvolution.plan(this.reader, next, before, this.explode, server);
        if (!plan.addsColumns()) {
            refused(plan, latest);
            this.version = latest.version(); // nothing to add: this version is handled
            return false;
        }
        // Derived against the table as it will be before anything is altered: a mapping that cannot be
        // derived fails here, with the table unchanged.
        this.derive.apply(next, plan.evolved(before));
        this.table.add(plan.columns());
        AvroTableMapping evolved = this.derive.apply(next, this.table.read());
        int layout = this.layouts.register(evolved.rowMapping().columns());
        this.transcoders.evolve(evolved.rowMapping(), layout);
        this.mapping = evolved;
        this.reader = next;
        this.version = latest.version();
        this.evolutions.increment();
        refused(plan, latest);
        logger.info(
                "ClickHouse sink '{}' ({}): subject {} version {} (schema id {}) added column(s) {}; the lanes switch "
                        + "to column layout {}",
                this.sink,
                this.table.name(),
                this.subject,
                latest.version(),
                latest.id(),
                plan.added().stream().map((a) -> a.column() + " ← " + a.field()).collect(Collectors.joining(", ")),
                layout);
        return true;
    }

    private void refused(AvroTableEvolution plan, RegisteredSchema latest) {
        if (plan.refused().isEmpty()) {
            return;
        }
        for (AvroTableEvolution.Refusal refusal : plan.refused()) {
            Counter.builder("etl.sink.evolution.refused.fields")
                    .description("Fields of a subject's new schema that auto-evolve did not add as columns")
                    .tag("sink", this.sink)
                    .tag("reason", refusal.reason().tag())
                    .register(this.meters)
                    .increment();
        }
        logger.warn(
                "ClickHouse sink '{}' ({}): subject {} version {}: {} field(s) not added as columns: {}",
                this.sink,
                this.table.name(),
                this.subject,
                latest.version(),
                plan.refused().size(),
                plan.refused());
    }
}
