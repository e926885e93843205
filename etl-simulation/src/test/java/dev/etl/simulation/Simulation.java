package dev.etl.simulation;

import dev.etl.deser.Deserializer;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.ops.HeldAcks;
import dev.etl.ops.OperatorContext;
import dev.etl.ops.OperatorTimer;
import dev.etl.ops.StatefulOperator;
import dev.etl.pipeline.Pipeline;
import dev.etl.pipeline.PipelineConfig;
import dev.etl.pipeline.PipelineRuntime;
import dev.etl.pipeline.PipelineState;
import dev.etl.record.Collector;
import dev.etl.sink.BatchConfig;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RetryConfig;
import dev.etl.sink.RowEncoder;
import dev.etl.sink.SinkDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One seed of the deterministic simulation: the real engine ({@link Pipeline}: lanes, chains with stateful
 * operators, deterministic blocks, the checkpointer, the sink runtime, dedup tokens) on a {@link SimScheduler},
 * reading a {@link SimKafka} and writing a {@link SimClickHouse}, through a few process incarnations that
 * each end in a crash or a graceful stop, with faults meanwhile (failed and slow inserts, lost responses,
 * failed commits, rebalances, lost partitions), the topic deleted and created again, and restarts with
 * another configuration (shard count, shard weights, lanes, linger, in-flight budget). A last incarnation
 * without faults must then catch up. Everything the seed does follows from the seed.
 *
 * <p>Invariants checked at the end ({@link #run()} throws {@link SimulationFailure} naming the first that
 * broke): every record the group committed, and every record of the topic as it is at the end, has its
 * rows in the tables (a loss is always a failure); the last incarnation catches up (lag 0) within a bound
 * of virtual time once faults stop (no stall) and ends with exit code 0; and where the model says the
 * servers' deduplication applies — a deterministic chain writing deterministic blocks, no change of
 * topology, no recreated topic — no row is stored twice. Elsewhere duplicates are counted, not failed.
 */
final class Simulation {
    /** What the chain does with a record. */
    enum Profile {
        /** Each record to one row, in deterministic blocks: zero duplicates expected. */
        PLAIN,
        /** Each record through a buffer that holds its acks and emits on a count or on its timer. */
        HELD,
        /** Both: a plain row and a held row per record, into the same sink. */
        FANOUT
    }

    /** A process incarnation's configuration. */
    record Settings(
            int lanes,
            int shards,
            int[] weights,
            boolean valueKey,
            long lingerMs,
            long budgetBytes,
            int maxRows,
            int writersPerShard) {
        String topology() {
            return shards + (weights == null ? "" : Arrays.toString(weights)) + (valueKey ? " by value" : "");
        }

        @Override
        public String toString() {
            return "lanes=" + lanes + " shards=" + topology() + " linger=" + lingerMs + "ms budget=" + budgetBytes
                    + " maxRows=" + maxRows + " writers=" + writersPerShard;
        }
    }

    private static final int PARTITIONS = 4;
    private static final long MS = 1_000_000L;
    /** Virtual time the last incarnation has to catch up once faults stop. */
    private static final long CATCH_UP_NS = 120_000 * MS;

    final long seed;
    private final Random random;
    private final SimScheduler scheduler;
    private final SimKafka kafka;
    private final SimClickHouse clickHouse;
    final Profile profile;
    private final int bufferSize;
    /** Share of records the servers refuse for their content (0 in most seeds). */
    private final double poisonRate;

    private final Random poisonRandom;

    private final Random routerRandom;
    /** Writers per shard: a stream of its own, like the router's. */
    private final Random writersRandom;

    private final long bufferDelayMs;
    private final List<String> history = new ArrayList<>();
    /** Rows that must be stored: of records committed before their topic was deleted, and of the last topic. */
    private final List<String> mustHaveRows = new ArrayList<>();

    private boolean topologyChanged;
    private boolean topicRecreated;
    private int incarnation;
    private Settings settings;
    private long produced;

    Simulation(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        this.scheduler = new SimScheduler(seed ^ 0x5DEECE66DL);
        this.kafka = new SimKafka(scheduler, new Random(seed * 17 + 3), PARTITIONS);
        this.clickHouse = new SimClickHouse(
                scheduler,
                new Random(seed * 13 + 5),
                random.nextBoolean() ? SimClickHouse.Dedup.TOKEN : SimClickHouse.Dedup.CONTENT,
                1_000);
        this.profile = Profile.values()[random.nextInt(Profile.values().length)];
        this.bufferSize = 1 + random.nextInt(4);
        // From a stream of its own, so seeds without refused records schedule exactly as before it existed.
        this.poisonRandom = new Random(seed * 7 + 11);
        this.routerRandom = new Random(seed * 5 + 13);
        this.writersRandom = new Random(seed * 3 + 17);
        this.poisonRate = poisonRandom.nextInt(4) == 0 ? 0.002 + poisonRandom.nextDouble() * 0.02 : 0;
        this.bufferDelayMs = 5 + random.nextInt(100);
        this.kafka.maxPoll = 1 + random.nextInt(60);
    }

    /** Runs the seed; returns its report, or throws {@link SimulationFailure}. */
    Report run() {
        try {
            settings = randomSettings(null);
            produce(100 + random.nextInt(600));
            int faulty = 1 + random.nextInt(4);
            for (int i = 0; i < faulty; i++) {
                incarnation(true);
            }
            RunOutcome last = incarnation(false);
            return check(last);
        } catch (SimulationFailure e) {
            throw new SimulationFailure(describe() + "\n" + e.getMessage(), e.getCause());
        } finally {
            scheduler.releaseKilled();
        }
    }

    private String describe() {
        return "seed " + seed + " (" + profile + ", dedup " + clickHouse.dedup + ", buffer " + bufferSize + "/"
                + bufferDelayMs + "ms, maxPoll " + kafka.maxPoll + "): " + String.join("; ", history);
    }

    private Settings randomSettings(Settings previous) {
        int shards = previous == null || random.nextInt(3) == 0
                ? 1 + random.nextInt(SimClickHouse.MAX_SHARDS)
                : previous.shards();
        int[] weights = null;
        if (shards > 1 && random.nextInt(3) == 0) {
            weights = new int[shards];
            for (int i = 0; i < shards; i++) {
                weights[i] = 1 + random.nextInt(3);
            }
        } else if (previous != null && previous.shards() == shards && random.nextBoolean()) {
            weights = previous.weights();
        }
        Settings next = new Settings(
                1 + random.nextInt(3),
                shards,
                weights,
                // From a stream of its own (added later: seeds that never draw it schedule as before).
                routerRandom.nextInt(4) == 0,
                5 + random.nextInt(60),
                (1 + random.nextInt(8)) * 64 * 1024L,
                20 + random.nextInt(300),
                1 + writersRandom.nextInt(3));
        if (previous != null && !previous.topology().equals(next.topology())) {
            topologyChanged = true;
        }
        return next;
    }

    private void produce(int records) {
        for (int i = 0; i < records; i++) {
            int partition = random.nextInt(PARTITIONS);
            long offset = kafka.endOffset(partition);
            // Now and then a record the server refuses (its rows end in "!"): skipped, never written.
            String value = "t" + kafka.topicIncarnation() + ":" + partition + ":" + offset
                    + (poisonRate > 0 && poisonRandom.nextDouble() < poisonRate ? "!" : "");
            kafka.produce(partition, SimKafka.utf8("k" + random.nextInt(40)), SimKafka.utf8(value));
            produced++;
        }
    }

    /** How a process incarnation ended. */
    record RunOutcome(PipelineState state, int exitCode, String failure) {}

    private RunOutcome incarnation(boolean faulty) {
        incarnation++;
        if (incarnation > 1) {
            settings = randomSettings(settings);
            if (faulty && random.nextInt(6) == 0) {
                recreateTopic();
            }
        }
        clickHouse.failBefore = faulty ? random.nextDouble() * 0.2 : 0;
        clickHouse.failAfter = faulty ? random.nextDouble() * 0.2 : 0;
        clickHouse.maxLatencyMs = random.nextInt(30);
        kafka.commitFailure = faulty ? random.nextDouble() * 0.1 : 0;
        history.add("#" + incarnation + (faulty ? "" : " last") + " " + settings);

        scheduler.process(incarnation);
        SimKafka.SimSource source = kafka.source(incarnation);
        PipelineRuntime runtime = pipeline(source);
        runtime.start();
        long endNs = scheduler.now() + (faulty ? (100 + random.nextInt(2_500)) * MS : CATCH_UP_NS);
        double crashPerStep = faulty ? 0.0005 + random.nextDouble() * 0.004 : 0;
        boolean stopGracefully = !faulty || random.nextInt(3) == 0;
        while (true) {
            assignUnowned(source);
            if (faulty) {
                injectEvents(source);
            } else if (caughtUp(source)) {
                break;
            }
            if (runtime.state() == PipelineState.FAILED) {
                break;
            }
            if (scheduler.now() - endNs >= 0) {
                if (!faulty) {
                    throw new SimulationFailure("stall: incarnation #" + incarnation + " did not catch up within "
                            + CATCH_UP_NS / MS + " ms of virtual time without faults: " + lag(source));
                }
                break;
            }
            if (faulty && random.nextDouble() < crashPerStep) {
                stopGracefully = false;
                history.add("killed at " + scheduler.now() / MS + "ms");
                return kill(source, runtime);
            }
            if (!scheduler.step()) {
                scheduler.runUntil(scheduler.now() + MS);
            }
        }
        if (!stopGracefully && runtime.state() != PipelineState.FAILED) {
            history.add("killed at " + scheduler.now() / MS + "ms");
            return kill(source, runtime);
        }
        return stop(source, runtime);
    }

    private RunOutcome kill(SimKafka.SimSource source, PipelineRuntime runtime) {
        source.dead = true;
        scheduler.kill(incarnation);
        return new RunOutcome(null, -1, "killed");
    }

    /** SIGTERM: drains and ends, within the drain timeout plus a margin (else it is killed). */
    private RunOutcome stop(SimKafka.SimSource source, PipelineRuntime runtime) {
        runtime.shutdown();
        long deadline = scheduler.now() + 30_000 * MS;
        while (!scheduler.allDone(incarnation)) {
            if (scheduler.now() - deadline >= 0) {
                throw new SimulationFailure(
                        "incarnation #" + incarnation + " did not end within 30 s of virtual time after SIGTERM");
            }
            if (!scheduler.step()) {
                scheduler.runUntil(scheduler.now() + MS);
            }
        }
        source.dead = true;
        dev.etl.pipeline.RunReport report;
        try {
            report = runtime.awaitTermination(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SimulationFailure("interrupted", e);
        }
        history.add("stopped: " + (report == null ? "no report" : report.state() + " exit " + report.exitCode()));
        if (report == null) {
            throw new SimulationFailure("incarnation #" + incarnation + " ended its threads without a run report");
        }
        return new RunOutcome(
                report.state(),
                report.exitCode(),
                report.failure() == null ? null : report.failure().getMessage());
    }

    private void recreateTopic() {
        for (int p = 0; p < PARTITIONS; p++) {
            long committed = kafka.committedOffset(p);
            for (long o = 0; o < committed; o++) {
                expectRowsOf(p, (int) o);
            }
        }
        kafka.recreateTopic();
        topicRecreated = true;
        history.add("topic recreated");
        produce(50 + random.nextInt(300));
    }

    private void injectEvents(SimKafka.SimSource source) {
        int roll = random.nextInt(2_000);
        if (roll < 8) {
            produce(1 + random.nextInt(40));
            source.wakeAll();
        } else if (roll < 10 && source.settled()) {
            int partition = random.nextInt(PARTITIONS);
            if (source.owner[partition] >= 0) {
                source.revoke(partition);
            }
        } else if (roll == 10 && source.settled()) {
            int partition = random.nextInt(PARTITIONS);
            if (source.owner[partition] >= 0) {
                source.lose(partition);
            }
        }
    }

    /** Assigns every partition no lane owns to a random open lane, once earlier changes were delivered. */
    private void assignUnowned(SimKafka.SimSource source) {
        if (!source.settled() || source.openLanes() < settings.lanes()) {
            return;
        }
        for (int p = 0; p < PARTITIONS; p++) {
            if (source.owner[p] < 0) {
                source.assign(random.nextInt(settings.lanes()), p);
            }
        }
    }

    private boolean caughtUp(SimKafka.SimSource source) {
        if (!source.settled()) {
            return false;
        }
        for (int p = 0; p < PARTITIONS; p++) {
            if (source.owner[p] < 0 || kafka.committedOffset(p) < kafka.endOffset(p)) {
                return false;
            }
        }
        return true;
    }

    private String lag(SimKafka.SimSource source) {
        StringBuilder sb = new StringBuilder();
        for (int p = 0; p < PARTITIONS; p++) {
            sb.append(p == 0 ? "" : ", ")
                    .append(SimKafka.TOPIC)
                    .append('-')
                    .append(p)
                    .append(" committed ")
                    .append(kafka.committedOffset(p))
                    .append(" of ")
                    .append(kafka.endOffset(p))
                    .append(source.owner[p] < 0 ? " (unassigned)" : " (lane " + source.owner[p] + ")");
        }
        return sb.toString();
    }

    private PipelineRuntime pipeline(SimKafka.SimSource source) {
        Settings s = settings;
        PipelineConfig config = PipelineConfig.builder("sim")
                .lanes(s.lanes())
                .checkpointInterval(Duration.ofMillis(20 + random.nextInt(200)))
                .drainTimeout(Duration.ofSeconds(5))
                .stalledFailAfter(Duration.ofSeconds(60))
                .pollTimeout(Duration.ofMillis(20))
                .maxInFlightBytes(s.budgetBytes())
                .build();
        KeyHashRouter<String> router =
                s.valueKey() ? KeyHashRouter.byKey(v -> v.hashCode()) : KeyHashRouter.byRecordKey();
        KeyHashRouter<String> routed = s.weights() == null ? router : router.withWeights(s.weights());
        SinkDefinition sink = SinkDefinition.builder("ch", s.shards(), shard -> clickHouse.writer(shard, source))
                .batch(new BatchConfig(s.maxRows(), 1 << 20, Duration.ofMillis(s.lingerMs())))
                .retry(new RetryConfig(0, Duration.ofMillis(5), Duration.ofMillis(200), 2.0, 0.2))
                .deterministicBlocks(true)
                .writersPerShard(s.writersPerShard())
                .permanentFailure(dev.etl.error.ErrorPolicy.SKIP)
                .build();
        return Pipeline.builder(config)
                .source(source)
                .sink(sink)
                .chains(chains(routed))
                .scheduler(scheduler)
                .build();
    }

    private static final Deserializer<String> UTF8 = (key, value, meta, out) -> out.collect(value.toUtf8String());
    private static final RowEncoder<String> STRING = (value, meta, rows) -> rows.writeString(value);

    private ChainFactory chains(KeyHashRouter<String> router) {
        int size = bufferSize;
        long delayMs = bufferDelayMs;
        return switch (profile) {
            case PLAIN -> ctx -> Chains.from(ctx, UTF8).sink(STRING, router);
            case HELD ->
                ctx -> Chains.from(ctx, UTF8)
                        .process("buffer", new Buffer(size, delayMs))
                        .sink(STRING, router);
            case FANOUT ->
                ctx -> Chains.from(ctx, UTF8)
                        .fanOut(
                                "both",
                                b -> b.map("plain", v -> "p|" + v).sink(STRING, router),
                                b -> b.process("buffer", new Buffer(size, delayMs))
                                        .sink(STRING, router));
        };
    }

    /** Adds the rows the record at {@code offset} of {@code partition} must end up as (none for poison). */
    private void expectRowsOf(int partition, int offset) {
        String value = new String(kafka.log(partition).get(offset).value(), java.nio.charset.StandardCharsets.UTF_8);
        if (!value.endsWith("!")) {
            mustHaveRows.addAll(rowsOf(value));
        }
    }

    /** The rows a record's value must end up as, for this seed's chain. */
    private List<String> rowsOf(String value) {
        return switch (profile) {
            case PLAIN -> List.of(value);
            case HELD -> List.of("h|" + value);
            case FANOUT -> List.of("p|" + value, "h|" + value);
        };
    }

    /**
     * Keeps up to {@code size} values, holding their acks, and emits them all (as {@code h|value}) when it
     * has {@code size}, when its timer fires {@code delayMs} after the first, and at flush.
     */
    static final class Buffer implements StatefulOperator<String, String> {
        private final int size;
        private final long delayMs;
        private final List<String> kept = new ArrayList<>();
        private HeldAcks held;
        private OperatorTimer timer;

        Buffer(int size, long delayMs) {
            this.size = size;
            this.delayMs = delayMs;
        }

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
            timer = context.timer();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            if (kept.isEmpty()) {
                timer.schedule(Duration.ofMillis(delayMs));
            }
            kept.add("h|" + in);
            held.holdCurrent();
            if (kept.size() >= size) {
                emit(out);
            }
        }

        @Override
        public void onTimer(Collector<? super String> out) {
            emit(out);
        }

        @Override
        public void flush(Collector<? super String> out) {
            emit(out);
        }

        private void emit(Collector<? super String> out) {
            if (kept.isEmpty()) {
                return;
            }
            try (HeldAcks.Emission<String> emission = held.emit(out)) {
                for (String row : kept) {
                    emission.collect(row);
                }
            }
            kept.clear();
            timer.cancel();
        }
    }

    /** What a seed did and found. */
    record Report(
            long seed,
            Profile profile,
            long records,
            long rows,
            long duplicates,
            boolean duplicatesExpected,
            long inserts,
            long deduplicated,
            long steps,
            long virtualMs,
            long trace) {
        @Override
        public String toString() {
            return "seed " + seed + ": " + profile + ", " + records + " records, " + rows + " rows, " + duplicates
                    + " duplicates" + (duplicatesExpected ? " (allowed)" : "") + ", " + inserts + " inserts ("
                    + deduplicated + " deduplicated), " + steps + " steps, " + virtualMs + " ms virtual, trace "
                    + Long.toHexString(trace);
        }
    }

    private Report check(RunOutcome last) {
        if (last.exitCode() != 0) {
            throw new SimulationFailure("the last incarnation ended with " + last.state() + ", exit code "
                    + last.exitCode() + (last.failure() == null ? "" : ": " + last.failure()));
        }
        for (int p = 0; p < PARTITIONS; p++) {
            for (long o = 0; o < kafka.endOffset(p); o++) {
                expectRowsOf(p, (int) o);
            }
        }
        Map<String, Integer> counts = clickHouse.rowCounts();
        for (String row : counts.keySet()) {
            if (SimClickHouse.isPoison(row)) {
                throw new SimulationFailure("a row the server refuses is stored: " + row);
            }
        }
        List<String> missing = new ArrayList<>();
        for (String row : mustHaveRows) {
            if (!counts.containsKey(row)) {
                missing.add(row);
            }
        }
        if (!missing.isEmpty()) {
            throw new SimulationFailure("LOSS: " + missing.size() + " rows of committed records are in no table, e.g. "
                    + missing.subList(0, Math.min(10, missing.size())));
        }
        long duplicates = 0;
        for (int n : counts.values()) {
            duplicates += n - 1;
        }
        boolean expected = profile != Profile.PLAIN || topologyChanged || topicRecreated;
        if (duplicates > 0 && !expected) {
            List<String> examples = new ArrayList<>();
            counts.forEach((row, n) -> {
                if (n > 1 && examples.size() < 10) {
                    examples.add(row + "×" + n);
                }
            });
            throw new SimulationFailure("DUPLICATES where deduplication applies (deterministic chain and blocks, "
                    + "one topology, one topic): " + duplicates + ", e.g. " + examples);
        }
        return new Report(
                seed,
                profile,
                produced,
                counts.size(),
                duplicates,
                expected,
                clickHouse.inserts(),
                clickHouse.deduplicated(),
                scheduler.steps(),
                scheduler.now() / MS,
                scheduler.trace());
    }
}
