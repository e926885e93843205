package dev.etl.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.error.FatalPipelineException;
import dev.etl.error.SourceException;
import dev.etl.source.CommitOffsets;
import dev.etl.source.CommittedPosition;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DatagenSourceTest {

    /** The id as the key, and 8 random bytes as the value: enough to see determinism. */
    static final RecordGenerator ID_AND_RANDOM = (partition, sequence, random, out) -> {
        out.key().writeLongBE(out.id());
        out.value().writeLongBE(random.nextLong());
    };

    static long id(LaneDriver.Delivered d) {
        return ByteBuffer.wrap(d.key()).getLong();
    }

    @Test
    void boundedRunGeneratesEveryIdOnceSpreadOverPartitionsAndLanes() {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(3)
                .records(10)
                .lanes(2)
                .build();
        LaneDriver lane0 = new LaneDriver(source, 0);
        LaneDriver lane1 = new LaneDriver(source, 1);

        List<LaneDriver.Delivered> all = new ArrayList<>(lane0.drain());
        all.addAll(lane1.drain());

        assertThat(lane0.assignments).containsExactly(new int[] {0, 2});
        assertThat(lane1.assignments).containsExactly(new int[] {1});
        assertThat(all)
                .extracting(DatagenSourceTest::id)
                .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
        for (LaneDriver.Delivered d : all) {
            assertThat(id(d)).as("id = sequence × partitions + partition").isEqualTo(d.offset() * 3 + d.partition());
        }
        assertThat(source.endOffset(0)).isEqualTo(4);
        assertThat(source.endOffset(1)).isEqualTo(3);
        assertThat(source.endOffset(2)).isEqualTo(3);
        assertThat(source.generated()).isEqualTo(10);
        assertThat(lane0.poll()).as("nothing after the end").isEmpty();
    }

    @Test
    void fewerRecordsThanPartitionsLeavesSomePartitionsEmptyAndTheRunStillEnds() {
        DatagenSource source =
                DatagenSource.builder(ID_AND_RANDOM).partitions(4).records(2).build();
        LaneDriver lane = new LaneDriver(source, 0);
        assertThat(lane.drain()).extracting(DatagenSourceTest::id).containsExactly(0L, 1L);
        lane.lane.commit(
                CommitOffsets.builder(2).add(0, 1, null).add(1, 1, null).build(), true, null);
        assertThat(source.isDone()).isTrue();
    }

    @Test
    void theSameSeedGivesTheSameRecordsWhateverTheLanesAndPollSizes() {
        Map<String, String> oneLane = contents(
                DatagenSource.builder(ID_AND_RANDOM)
                        .partitions(5)
                        .records(200)
                        .seed(7)
                        .lanes(1)
                        .maxPollRecords(7)
                        .build(),
                1);
        Map<String, String> threeLanes = contents(
                DatagenSource.builder(ID_AND_RANDOM)
                        .partitions(5)
                        .records(200)
                        .seed(7)
                        .lanes(3)
                        .maxPollRecords(2)
                        .build(),
                3);
        Map<String, String> otherSeed = contents(
                DatagenSource.builder(ID_AND_RANDOM)
                        .partitions(5)
                        .records(200)
                        .seed(8)
                        .lanes(1)
                        .build(),
                1);

        assertThat(oneLane).hasSize(200).isEqualTo(threeLanes);
        assertThat(otherSeed).hasSize(200).isNotEqualTo(oneLane);
        long differing = oneLane.keySet().stream()
                .filter((k) -> !oneLane.get(k).equals(otherSeed.get(k)))
                .count();
        assertThat(differing).as("another seed changes (nearly) every record").isGreaterThan(190);
    }

    /** partition-offset → value, over all lanes. */
    private static Map<String, String> contents(DatagenSource source, int lanes) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < lanes; i++) {
            for (LaneDriver.Delivered d : new LaneDriver(source, i).drain()) {
                out.put(
                        d.partition() + "-" + d.offset(),
                        java.util.HexFormat.of().formatHex(d.value()));
            }
        }
        return out;
    }

    @Test
    void aPollDeliversOneBatchPerPartitionOfAtMostMaxPollRecords() {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .records(25)
                .maxPollRecords(5)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        assertThat(lane.poll()).hasSize(10);
        assertThat(lane.batchSizes).containsExactly(5, 5);
        lane.drain();
        assertThat(lane.records).hasSize(25);
        assertThat(lane.batchSizes).allMatch((size) -> size <= 5);
    }

    @Test
    void anUnboundedUnlimitedRunGeneratesAFullBatchOnEveryPoll() {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .maxPollRecords(100)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        for (int i = 0; i < 5; i++) {
            assertThat(lane.poll()).hasSize(200);
        }
        assertThat(source.isBounded()).isFalse();
        assertThat(source.records()).isEqualTo(-1);
    }

    @Test
    void theRateScheduleIsExactOnAFakeClock() {
        AtomicLong now = new AtomicLong(1_000);
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(4)
                .ratePerSecond(1_000)
                .maxPollRecords(100_000)
                .nanoClock(now::get)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);

        assertThat(lane.poll()).as("nothing is due at the start").isEmpty();
        now.addAndGet(999_999);
        assertThat(lane.poll()).as("the first record is due after 1 ms").isEmpty();
        now.addAndGet(1);
        assertThat(lane.poll()).extracting(DatagenSourceTest::id).containsExactly(0L);
        now.addAndGet(999_000_000);
        assertThat(lane.poll()).as("1000 in the first second").hasSize(999);
        now.addAndGet(9_500_000_000L);
        assertThat(lane.poll()).as("10,500 after 10.5 s").hasSize(9_500);
        assertThat(source.generated()).isEqualTo(10_500);
        // evenly spread: ids 0..10499, each partition a quarter
        assertThat(lane.records)
                .extracting(LaneDriver.Delivered::partition)
                .filteredOn((p) -> p == 3)
                .hasSize(2_625);
    }

    @Test
    void aRateLimitedBoundedRunStopsAtItsEnd() {
        AtomicLong now = new AtomicLong();
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .records(1_500)
                .ratePerSecond(1_000)
                .nanoClock(now::get)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.poll();
        now.addAndGet(1_000_000_000);
        assertThat(lane.poll()).hasSize(1_000);
        now.addAndGet(60_000_000_000L);
        assertThat(lane.poll()).hasSize(500);
        assertThat(lane.poll()).isEmpty();
    }

    @Test
    void aPausedLaneDeliversNothingWhileTheScheduleRunsOnAndTheLagShowsIt() {
        AtomicLong now = new AtomicLong();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .ratePerSecond(1_000)
                .maxPollRecords(100_000)
                .nanoClock(now::get)
                .meterRegistry(registry)
                .pipeline("p")
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.poll();

        lane.lane.pause();
        now.addAndGet(2_000_000_000L);
        assertThat(lane.poll()).isEmpty();
        assertThat(lane.lane.isPaused()).isTrue();
        assertThat(lag(registry, "0") + lag(registry, "1"))
                .as("what a producer would have written meanwhile")
                .isEqualTo(2_000);

        lane.lane.resume();
        assertThat(lane.poll()).as("caught up at once after the pause").hasSize(2_000);
        assertThat(lag(registry, "0")).isZero();
    }

    private static double lag(SimpleMeterRegistry registry, String partition) {
        Gauge gauge = registry.find("etl.source.lag")
                .tags("pipeline", "p", "topic", "datagen", "partition", partition)
                .gauge();
        assertThat(gauge).as("lag gauge of partition " + partition).isNotNull();
        return gauge.value();
    }

    @Test
    void aLaneMoreThanASecondBehindItsRateWarnsRateLimited() {
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(DatagenLane.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
                new ch.qos.logback.core.read.ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            AtomicLong now = new AtomicLong();
            DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                    .ratePerSecond(1_000)
                    .maxPollRecords(10)
                    .nanoClock(now::get)
                    .pipeline("p")
                    .build();
            LaneDriver lane = new LaneDriver(source, 0);
            lane.poll();
            now.addAndGet(500_000_000L);
            lane.poll();
            assertThat(appender.list)
                    .as("half a second behind: catching up, no warning")
                    .isEmpty();
            now.addAndGet(4_500_000_000L);
            lane.poll();
            lane.poll();
            assertThat(appender.list).hasSize(1);
            assertThat(appender.list.get(0).getFormattedMessage())
                    .contains("pipeline=p datagen lane=0 is 4980 records behind its rate of 1000 records/s")
                    .contains("the pipeline does not keep up");
        } finally {
            logger.detachAppender(appender);
        }
    }

    @Test
    void aPausedPartitionIsSkippedWhileTheOthersFlow() {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .records(20)
                .maxPollRecords(3)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.poll(); // assignment + a first batch each
        lane.lane.pausePartition(1);
        lane.drain();
        assertThat(lane.records).filteredOn((d) -> d.partition() == 0).hasSize(10);
        long before = lane.records.stream().filter((d) -> d.partition() == 1).count();
        lane.lane.pause();
        lane.lane.resume(); // the lane-wide resume does not resume a partition paused on its own
        assertThat(lane.poll()).isEmpty();
        lane.lane.resumePartition(1);
        lane.drain();
        assertThat(lane.records).filteredOn((d) -> d.partition() == 1).hasSize(10);
        assertThat(before).as("only the first batch before the pause").isEqualTo(3);
    }

    @Test
    void commitsAreKeptInMemoryAsynchronousCallbacksComeFromALaterPoll() {
        DatagenSource source =
                DatagenSource.builder(ID_AND_RANDOM).partitions(1).records(10).build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.drain();
        List<CommitOffsets> completed = new ArrayList<>();
        CommitOffsets offsets = CommitOffsets.builder(1).add(0, 4, "etl1:meta").build();

        lane.lane.commit(offsets, false, (o, error) -> {
            assertThat(error).isNull();
            completed.add(o);
        });
        assertThat(completed).as("not from inside commit").isEmpty();
        assertThat(source.committedOffset(0)).isEqualTo(4);
        assertThat(source.committedMetadata(0)).isEqualTo("etl1:meta");
        lane.poll();
        assertThat(completed).containsExactly(offsets);
        assertThat(lane.lane.committed(0)).as("a new process starts at 0").isEqualTo(CommittedPosition.NONE);
    }

    @Test
    void aCommitPastWhatWasGeneratedOrOfAnotherLanesPartitionIsRefused() {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM)
                .partitions(2)
                .records(100)
                .lanes(2)
                .maxPollRecords(10)
                .build();
        LaneDriver lane0 = new LaneDriver(source, 0);
        lane0.poll();

        assertThatThrownBy(() -> lane0.lane.commit(
                        CommitOffsets.builder(1).add(0, 11, null).build(), true, null))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("datagen-0 at 11, past the 10 records generated");
        assertThatThrownBy(() -> lane0.lane.commit(
                        CommitOffsets.builder(1).add(1, 0, null).build(), true, null))
                .isInstanceOf(SourceException.class)
                .hasMessageContaining("partition datagen-1, which it does not own");
        assertThat(source.committedOffset(0))
                .as("a refused commit stores nothing")
                .isEqualTo(-1);
    }

    @Test
    void theRunIsDoneOnceEveryPartitionsEndIsCommittedAndTheCallbackRunsOnce() {
        DatagenSource source =
                DatagenSource.builder(ID_AND_RANDOM).partitions(2).records(10).build();
        AtomicInteger calls = new AtomicInteger();
        source.onDone(calls::incrementAndGet);
        LaneDriver lane = new LaneDriver(source, 0);
        lane.drain();

        lane.lane.commit(
                CommitOffsets.builder(2).add(0, 5, null).add(1, 4, null).build(), true, null);
        assertThat(source.isDone()).as("partition 1 has 5").isFalse();
        lane.lane.commit(CommitOffsets.builder(1).add(1, 5, null).build(), true, null);
        assertThat(source.isDone()).isTrue();
        lane.lane.commit(CommitOffsets.builder(1).add(1, 5, null).build(), true, null);
        assertThat(calls).hasValue(1);

        AtomicInteger late = new AtomicInteger();
        source.onDone(late::incrementAndGet);
        assertThat(late).as("registered after the end: runs at once").hasValue(1);
    }

    @Test
    void anUnboundedRunIsNeverDone() throws InterruptedException {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM).build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.poll();
        lane.lane.commit(CommitOffsets.builder(1).add(0, 100, null).build(), true, null);
        assertThat(source.awaitDone(Duration.ofMillis(10))).isFalse();
    }

    @Test
    void anIdlePollWaitsItsTimeoutAndWakeupEndsItEarly() throws Exception {
        DatagenSource source = DatagenSource.builder(ID_AND_RANDOM).records(1).build();
        LaneDriver lane = new LaneDriver(source, 0);
        lane.drain();

        long start = System.nanoTime();
        lane.poll(150);
        assertThat(System.nanoTime() - start).as("waited about its timeout").isGreaterThanOrEqualTo(140_000_000L);

        Thread waker = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            lane.lane.wakeup();
        });
        start = System.nanoTime();
        waker.start();
        lane.poll(30_000);
        waker.join();
        assertThat(System.nanoTime() - start)
                .as("woken long before the timeout")
                .isLessThan(10_000_000_000L);
    }

    @Test
    void aLaneBeyondTheBuiltLaneCountFailsNamingTheSetting() {
        DatagenSource source =
                DatagenSource.builder(ID_AND_RANDOM).partitions(4).lanes(2).build();
        assertThatThrownBy(() -> new LaneDriver(source, 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("built for 2 lane(s) but lane 2 opened")
                .hasMessageContaining("etl.pipeline.threads");
    }

    @Test
    void aFailingGeneratorFailsThePipelineNamingPartitionAndOffset() {
        DatagenSource source = DatagenSource.builder((p, s, r, out) -> {
                    if (s == 3) {
                        throw new IllegalStateException("boom");
                    }
                })
                .records(10)
                .build();
        LaneDriver lane = new LaneDriver(source, 0);
        assertThatThrownBy(lane::poll)
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("failed at datagen-0 offset 3")
                .hasMessageContaining("boom");
    }

    @Test
    void anAbsentKeyAndATombstoneAreDeliveredAsAbsent() {
        DatagenSource source = DatagenSource.builder((p, s, r, out) -> {
                    if (s == 1) {
                        out.tombstone();
                    }
                })
                .records(2)
                .build();
        List<LaneDriver.Delivered> records = new LaneDriver(source, 0).drain();
        assertThat(records.get(0).key()).isNull();
        assertThat(records.get(0).value()).isEmpty();
        assertThat(records.get(1).value()).isNull();
    }

    @Test
    void builderRefusesNonsenseNamingTheSetting() {
        DatagenSource.Builder builder = DatagenSource.builder(ID_AND_RANDOM);
        assertThatThrownBy(() -> builder.partitions(0)).hasMessageContaining("partitions must be >= 1");
        assertThatThrownBy(() -> builder.records(0)).hasMessageContaining("records must be >= 1");
        assertThatThrownBy(() -> builder.ratePerSecond(-1)).hasMessageContaining("rate must be in");
        assertThatThrownBy(() -> builder.maxPollRecords(0)).hasMessageContaining("max-poll-records");
    }
}
