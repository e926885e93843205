package dev.etl.internal.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.error.SkipBudget;
import dev.etl.internal.metrics.ErrorMetrics;
import dev.etl.pipeline.PipelineConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LaneChainContextSkipBudgetTest {
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Logger logger = (Logger) LoggerFactory.getLogger(LaneChainContext.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @AfterEach
    void detach() {
        logger.detachAppender(logs);
    }

    private LaneChainContext context(SkipBudget budget) {
        return context(budget, 2, new PipelineSkipWindow(budget, now::get));
    }

    private LaneChainContext context(SkipBudget budget, int lane, PipelineSkipWindow window) {
        PipelineConfig config =
                PipelineConfig.builder("orders").skipBudget(budget).build();
        return new LaneChainContext(
                config,
                lane,
                registry,
                Map.of(),
                new ErrorMetrics(registry, "orders"),
                null,
                window,
                now::get,
                10 * SECOND);
    }

    private static RecordException failure(ErrorClass errorClass, long offset) {
        return new RecordException(errorClass, "parse", "orders-3", offset, "not a number", null);
    }

    /** Skips {@code n} records of {@code errorClass}; returns how many were skipped before a trip. */
    private static int skip(LaneChainContext ctx, ErrorClass errorClass, int n) {
        for (int i = 0; i < n; i++) {
            ctx.skipped(failure(errorClass, i));
        }
        return n;
    }

    @Test
    void failsOnceMoreThanTheShareOfTheWindowsRecordsIsSkipped() {
        LaneChainContext ctx = context(new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100));
        ctx.recordsIn(200);
        skip(ctx, ErrorClass.OPERATOR, 100); // exactly half: allowed

        assertThatThrownBy(() -> ctx.skipped(failure(ErrorClass.OPERATOR, 100)))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("pipeline 'orders' lane 2 exceeded its skip budget: 101 of the 200 records")
                .hasMessageContaining("error type operator")
                .hasMessageContaining("more than 50% of at least 100 records in a 1m window, per lane or pipeline-wide")
                .hasMessageContaining("orders-3@100")
                .hasMessageContaining("etl.errors.skip-budget");
        assertThat(registry.get("etl.skip.budget.exceeded")
                        .tag("error_type", "operator")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void belowMinRecordsTheBudgetDoesNotApply() {
        LaneChainContext ctx = context(new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100));
        ctx.recordsIn(99);
        skip(ctx, ErrorClass.DESERIALIZATION, 99); // all of them, but 99 records are not a trend
        ctx.recordsIn(1);
        assertThatThrownBy(() -> ctx.skipped(failure(ErrorClass.DESERIALIZATION, 99)))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("100 of the 100 records");
    }

    @Test
    void errorClassesHaveSeparateBudgets() {
        LaneChainContext ctx = context(new SkipBudget(true, 0.5, Duration.ofMinutes(1), 10));
        ctx.recordsIn(100);
        skip(ctx, ErrorClass.DESERIALIZATION, 50);
        skip(ctx, ErrorClass.OPERATOR, 50);
        skip(ctx, ErrorClass.ENCODE, 50);
        assertThatThrownBy(() -> ctx.skipped(failure(ErrorClass.ENCODE, 1)))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("error type encode")
                .satisfies(e ->
                        assertThat(((FatalPipelineException) e).errorClass()).isEqualTo(ErrorClass.ENCODE));
    }

    /**
     * Issue 30 item 6: a topic too slow to bring min-records records within one window was never judged
     * (each window reset with fewer records), so it could skip 100 % forever. A window now lasts until it
     * has min-records records: the all-bad trickle trips the budget, per lane and pipeline-wide.
     */
    @Test
    void aSlowTopicWhoseRecordsAreAllBadTripsTheBudgetOnceMinRecordsArrivedHoweverLongThatTakes() {
        SkipBudget budget = new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100);
        LaneChainContext ctx = context(budget);
        assertThatThrownBy(() -> {
                    for (int minute = 0; minute < 60; minute++) {
                        ctx.recordsIn(10); // ten records a minute, every one bad
                        skip(ctx, ErrorClass.DESERIALIZATION, 10);
                        now.addAndGet(60 * SECOND);
                    }
                })
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("lane 2 exceeded its skip budget")
                .hasMessageContaining("of the 100 records it received in the last 540000 ms");
    }

    @Test
    void pipelineWideASlowTrickleOverSeveralLanesTripsTheBudgetToo() {
        SkipBudget budget = new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100);
        PipelineSkipWindow shared = new PipelineSkipWindow(budget, now::get);
        LaneChainContext lane0 = context(budget, 0, shared);
        LaneChainContext lane1 = context(budget, 1, shared);
        assertThatThrownBy(() -> {
                    for (int minute = 0; minute < 60; minute++) {
                        lane0.recordsIn(5);
                        lane1.recordsIn(5);
                        skip(lane0, ErrorClass.OPERATOR, 5);
                        skip(lane1, ErrorClass.OPERATOR, 5);
                        now.addAndGet(60 * SECOND);
                    }
                })
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("pipeline 'orders' exceeded its skip budget");
    }

    @Test
    void aNewWindowStartsFromZero() {
        LaneChainContext ctx = context(new SkipBudget(true, 0.5, Duration.ofSeconds(60), 10));
        ctx.recordsIn(100);
        skip(ctx, ErrorClass.OPERATOR, 50);
        now.addAndGet(59 * SECOND);
        ctx.recordsIn(100); // same window: 200 records, 50 skipped
        skip(ctx, ErrorClass.OPERATOR, 50);
        now.addAndGet(1 * SECOND);
        ctx.recordsIn(100); // a new window: the earlier 100 skips are forgotten
        skip(ctx, ErrorClass.OPERATOR, 50);
        assertThatThrownBy(() -> ctx.skipped(failure(ErrorClass.OPERATOR, 1)))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("51 of the 100 records");
    }

    @Test
    void lanesThatEachStayBelowTheMinimumTripThePipelineWideBudgetTogether() {
        SkipBudget budget = new SkipBudget(true, 0.5, Duration.ofMinutes(1), 100);
        PipelineSkipWindow shared = new PipelineSkipWindow(budget, now::get);
        List<LaneChainContext> lanes = List.of(
                context(budget, 0, shared),
                context(budget, 1, shared),
                context(budget, 2, shared),
                context(budget, 3, shared));
        // 60 records per lane (240 in all), 40 of each lane's bad: no lane reaches min-records on its own.
        for (LaneChainContext lane : lanes) {
            lane.recordsIn(60);
        }
        int skipped = 0;
        FatalPipelineException trip = null;
        outer:
        for (int i = 0; i < 40; i++) {
            for (LaneChainContext lane : lanes) {
                try {
                    lane.skipped(failure(ErrorClass.DESERIALIZATION, i));
                    skipped++;
                } catch (FatalPipelineException e) {
                    trip = e;
                    break outer;
                }
            }
        }
        assertThat(trip).as("the pipeline-wide count trips").isNotNull();
        assertThat(skipped)
                .as("it trips at the first skip over half of the 240 records")
                .isEqualTo(120);
        assertThat(trip)
                .hasMessageContaining(
                        "pipeline 'orders' exceeded its skip budget: 121 of the 240 records " + "its lanes received")
                .hasMessageContaining("error type deserialization");
    }

    @Test
    void thePipelineWideWindowRollsToo() {
        SkipBudget budget = new SkipBudget(true, 0.5, Duration.ofSeconds(60), 100);
        PipelineSkipWindow shared = new PipelineSkipWindow(budget, now::get);
        LaneChainContext a = context(budget, 0, shared);
        LaneChainContext b = context(budget, 1, shared);
        a.recordsIn(60);
        b.recordsIn(60);
        skip(a, ErrorClass.OPERATOR, 30);
        skip(b, ErrorClass.OPERATOR, 30); // 60 of 120: allowed
        now.addAndGet(60 * SECOND);
        a.recordsIn(60);
        b.recordsIn(60); // a new pipeline-wide window (it had 120 >= 100 records): the earlier 60 skips are forgotten
        assertThat(shared.records()).isEqualTo(120);
        skip(a, ErrorClass.OPERATOR, 30);
        skip(b, ErrorClass.OPERATOR, 30);
        // Each lane's own window saw only 60 records in its minute, so it went on: lane 0 now judges 120.
        assertThatThrownBy(() -> a.skipped(failure(ErrorClass.OPERATOR, 1)))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("lane 0 exceeded its skip budget: 61 of the 120 records");
    }

    @Test
    void aDisabledBudgetNeverFails() {
        LaneChainContext ctx = context(SkipBudget.DISABLED);
        ctx.recordsIn(1_000);
        skip(ctx, ErrorClass.DESERIALIZATION, 1_000);
        assertThat(registry.get("etl.errors")
                        .tag("error_type", "deserialization")
                        .counter()
                        .count())
                .isEqualTo(1_000);
    }

    @Test
    void theDefaultBudgetIsOn() {
        assertThat(PipelineConfig.builder("p").build().skipBudget()).isEqualTo(SkipBudget.DEFAULT);
        assertThat(SkipBudget.DEFAULT.enabled()).isTrue();
        assertThatThrownBy(() -> new SkipBudget(true, 1.0, Duration.ofMinutes(1), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-ratio");
    }

    @Test
    void suppressedSkipLinesAreReportedOnceTheIntervalPassesAndAtTeardown() {
        logs.start();
        logger.addAppender(logs);
        LaneChainContext ctx = context(SkipBudget.DISABLED);
        skip(ctx, ErrorClass.OPERATOR, 6); // one line, five suppressed
        assertThat(messages()).hasSize(1);

        ctx.reportSuppressed(false);
        assertThat(messages()).as("interval not over").hasSize(1);
        now.addAndGet(10 * SECOND);
        ctx.reportSuppressed(false);
        assertThat(messages())
                .hasSize(2)
                .last()
                .asString()
                .contains("pipeline=orders lane=2 skipped 5 more records whose lines were suppressed");

        skip(ctx, ErrorClass.OPERATOR, 2); // suppressed: the summary took this interval's line
        ctx.reportSuppressed(true);
        assertThat(messages()).hasSize(3).last().asString().contains("skipped 2 more records");
    }

    private List<String> messages() {
        return logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
