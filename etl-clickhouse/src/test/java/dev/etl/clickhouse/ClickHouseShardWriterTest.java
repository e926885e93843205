package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

import dev.etl.error.SinkWriteException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClickHouseShardWriterTest {
    private static final String A = "http://127.0.0.1:18123";
    private static final String B = "http://127.0.0.1:18124";

    private final FakeTransport transport = new FakeTransport();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private ClickHouseSinkConfig.Builder config() {
        return ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A, B)
                .breaker(2, Duration.ofSeconds(5));
    }

    private ClickHouseShardWriter writer(ClickHouseSinkConfig config, ClickHouseCapabilities caps) {
        return new ClickHouseShardWriter(config, 0, "orders", "p1", caps, transport, registry, clock::get);
    }

    private ClickHouseShardWriter writer() {
        return writer(config().build(), ClickHouseCapabilities.legacy("18.16.1"));
    }

    @Test
    void firstAttemptsGoRoundRobinOverReplicas() {
        ClickHouseShardWriter w = writer();
        for (int seq = 0; seq < 4; seq++) {
            w.write(TestBatch.of(seq, 1));
        }
        assertThat(transport.replicasUsed()).containsExactly(A, B, A, B);
    }

    @Test
    void anInsertTheServerReportsAsWritingNoRowCountsAsDeduplicatedOnItsReplica() {
        ClickHouseShardWriter w = writer();
        w.write(TestBatch.of(0, 1)); // A: no summary (18.16): nothing is known
        transport.written = 0;
        w.write(TestBatch.of(1, 1)); // B: the server dropped it as a block it had
        transport.written = 1;
        w.write(TestBatch.of(2, 1)); // A: written
        assertThat(registry.get("etl.clickhouse.deduplicated.inserts")
                        .tag("replica", B)
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("etl.clickhouse.deduplicated.inserts")
                        .tag("replica", A)
                        .counter()
                        .count())
                .isZero();
    }

    @Test
    void theSummaryHeaderGivesTheWrittenRows() {
        assertThat(ClickHouseHttpTransport.writtenRows(null)).isEqualTo(ClickHouseTransport.WRITTEN_UNKNOWN);
        assertThat(ClickHouseHttpTransport.writtenRows("{\"read_rows\":\"0\",\"read_bytes\":\"0\","
                        + "\"written_rows\":\"0\",\"written_bytes\":\"0\",\"total_rows_to_read\":\"0\"}"))
                .isZero();
        assertThat(ClickHouseHttpTransport.writtenRows("{\"written_rows\":\"1234\",\"written_bytes\":\"9\"}"))
                .isEqualTo(1234);
        assertThat(ClickHouseHttpTransport.writtenRows("{\"read_rows\":\"5\"}"))
                .isEqualTo(ClickHouseTransport.WRITTEN_UNKNOWN);
        assertThat(ClickHouseClientV2Transport.writtenRows(
                        java.util.Map.of("x-clickhouse-summary", "{\"written_rows\":\"7\"}")))
                .isEqualTo(7);
        assertThat(ClickHouseClientV2Transport.writtenRows(java.util.Map.of()))
                .isEqualTo(ClickHouseTransport.WRITTEN_UNKNOWN);
    }

    @Test
    void retryOfABatchGoesToTheNextReplica() {
        ClickHouseShardWriter w = writer();
        transport.failNext(A, FakeTransport.connectRefused());
        TestBatch first = TestBatch.of(7, 1);
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(first));
        assertThat(e.isTransient()).isTrue();
        w.write(first.retry());
        assertThat(transport.replicasUsed()).containsExactly(A, B);
        assertThat(transport.inserts.get(0).length()).isEqualTo(3);
    }

    @Test
    void legacyServerGetsNoTokenAndNoAsyncInsertButAlwaysTheOwnedSettings() {
        writer(config().setting("insert_quorum", "2").build(), ClickHouseCapabilities.legacy("18.16.1"))
                .write(TestBatch.of(0, 1));
        String query = transport.inserts.get(0).query();
        assertThat(query)
                .contains("query=INSERT+INTO+%60shop%60.%60orders%60+FORMAT+RowBinary")
                .contains("wait_end_of_query=1")
                .contains("insert_deduplicate=1")
                .contains("send_progress_in_http_headers=0")
                .contains("insert_quorum=2")
                .doesNotContain("insert_deduplication_token")
                .doesNotContain("async_insert");
    }

    @Test
    void modernServerGetsTheBatchTokenAndAsyncInsertOff() {
        writer(config().build(), new ClickHouseCapabilities("24.8", true, true, true))
                .write(TestBatch.of(3, 1));
        assertThat(transport.inserts.get(0).query())
                .contains("async_insert=0")
                .endsWith("&insert_deduplication_token=tok-3");
    }

    @Test
    void permanentErrorNamesShardReplicaTableAndServerTextAndSparesTheBreaker() {
        ClickHouseShardWriter w = writer();
        String server =
                "Code: 33, e.displayText() = DB::Exception: Cannot read all data. Bytes read: 1. Bytes expected: 5.";
        transport.failNext(A, FakeTransport.http(500, server));
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(TestBatch.of(0, 1)));
        assertThat(e.isTransient()).isFalse();
        assertThat(e)
                .hasMessageContaining("permanent")
                .hasMessageContaining("shard 0")
                .hasMessageContaining("replica " + A)
                .hasMessageContaining("table shop.orders")
                .hasMessageContaining(server);
        assertThat(w.replicaStatus().get(0).consecutiveFailures()).isZero();
        assertThat(registry.get("etl.clickhouse.inserts")
                        .tag("replica", A)
                        .tag("outcome", "permanent")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void breakerOpensAfterThresholdAndTheReplicaIsSkipped() {
        ClickHouseShardWriter w = writer();
        transport.down(A);
        // seq 0 -> A fails (1), retry -> B ok; seq 2 -> A fails (2): open
        assertThatThrownBy(() -> w.write(TestBatch.of(0, 1))).isInstanceOf(SinkWriteException.class);
        w.write(TestBatch.of(0, 2));
        w.write(TestBatch.of(1, 1)); // B by round robin
        assertThatThrownBy(() -> w.write(TestBatch.of(2, 1))).isInstanceOf(SinkWriteException.class);
        assertThat(w.replicaStatus().get(0).state()).isEqualTo(ClickHouseShardWriter.BreakerState.OPEN);
        assertThat(registry.get("etl.clickhouse.replica.healthy")
                        .tag("replica", A)
                        .gauge()
                        .value())
                .isZero();
        assertThat(registry.get("etl.clickhouse.breaker.opens")
                        .tag("replica", A)
                        .functionCounter()
                        .count())
                .isEqualTo(1);
        transport.inserts.clear();
        for (int seq = 3; seq < 7; seq++) {
            w.write(TestBatch.of(seq, 1));
        }
        assertThat(transport.replicasUsed()).containsOnly(B);
        assertThat(w.isHealthy()).isTrue();
    }

    @Test
    void allBreakersOpenFailsFastAndUnhealthyThenHalfOpenProbeRecovers() {
        ClickHouseShardWriter w = writer();
        transport.down(A);
        transport.down(B);
        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> w.write(TestBatch.of(0, 1))).isInstanceOf(SinkWriteException.class);
        }
        assertThat(w.isHealthy()).isFalse();
        int requests = transport.inserts.size();
        SinkWriteException fast = catchThrowableOfType(SinkWriteException.class, () -> w.write(TestBatch.of(1, 1)));
        assertThat(fast.isTransient()).isTrue();
        assertThat(fast)
                .hasMessageContaining("every circuit breaker is open")
                .hasMessageContaining(A)
                .hasMessageContaining(B);
        assertThat(transport.inserts)
                .as("no request while every breaker is open")
                .hasSize(requests);

        transport.up(A);
        transport.up(B);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        w.write(TestBatch.of(2, 1)); // the half-open probe of one replica
        assertThat(w.isHealthy()).isTrue();
        assertThat(w.replicaStatus())
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .contains(ClickHouseShardWriter.BreakerState.CLOSED);
    }

    @Test
    void anErrorThrownByTheHalfOpenProbeReopensTheBreakerWhichThenRecovers() {
        ClickHouseShardWriter w = writer();
        transport.down(A);
        transport.down(B);
        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> w.write(TestBatch.of(0, 1))).isInstanceOf(SinkWriteException.class);
        }
        assertThat(w.replicaStatus())
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.OPEN);
        transport.up(A);
        transport.up(B);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        // Both probes die with an Error inside the transport (no answer from the server).
        transport.throwNext(A, new StackOverflowError("probe A"));
        transport.throwNext(B, new AssertionError("probe B"));
        assertThatThrownBy(() -> w.write(TestBatch.of(1, 1))).isInstanceOf(Error.class);
        assertThatThrownBy(() -> w.write(TestBatch.of(2, 1))).isInstanceOf(Error.class);
        assertThat(w.replicaStatus())
                .as("an Error settles the probe: open again, not half-open forever")
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.OPEN);
        assertThat(registry.get("etl.clickhouse.insert.duration")
                        .tags("replica", A, "outcome", "transient")
                        .timer()
                        .count())
                .isEqualTo(3);

        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        w.write(TestBatch.of(3, 1));
        w.write(TestBatch.of(4, 1));
        assertThat(w.replicaStatus())
                .as("the next probes recover both replicas")
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.CLOSED);
        assertThat(w.isHealthy()).isTrue();
    }

    @Test
    void aRuntimeExceptionThrownByTheProbeAlsoReopensTheBreaker() {
        ClickHouseShardWriter w = writer();
        transport.down(A);
        transport.down(B);
        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> w.write(TestBatch.of(0, 1))).isInstanceOf(SinkWriteException.class);
        }
        transport.up(A);
        transport.up(B);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        transport.throwNext(A, new IllegalStateException("probe A"));
        transport.throwNext(B, new IllegalStateException("probe B"));
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(TestBatch.of(1, 1)));
        assertThat(e.isTransient()).isTrue();
        assertThat(w.replicaStatus())
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .contains(ClickHouseShardWriter.BreakerState.OPEN)
                .doesNotContain(ClickHouseShardWriter.BreakerState.CLOSED);
    }

    @Test
    void aThrowableBeforeTheRequestIsSentStillSettlesTheHalfOpenProbe() {
        ClickHouseShardWriter w = writer(config().build(), new ClickHouseCapabilities("24.8", true, true, true));
        transport.down(A);
        transport.down(B);
        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> w.write(TestBatch.of(0, 1))).isInstanceOf(SinkWriteException.class);
        }
        transport.up(A);
        transport.up(B);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        // The probe dies while the request is built (the token), before the transport is called.
        SealedBatchThrowingToken batch = new SealedBatchThrowingToken(TestBatch.of(1, 1));
        assertThatThrownBy(() -> w.write(batch)).isInstanceOf(Error.class);
        assertThatThrownBy(() -> w.write(batch)).isInstanceOf(Error.class);
        assertThat(w.replicaStatus())
                .as("both probes settled: open again, not half-open forever")
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.OPEN);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        w.write(TestBatch.of(2, 1));
        w.write(TestBatch.of(3, 1));
        assertThat(w.replicaStatus())
                .extracting(ClickHouseShardWriter.ReplicaStatus::state)
                .containsOnly(ClickHouseShardWriter.BreakerState.CLOSED);
    }

    /** A batch whose token cannot be computed: the request fails before anything is sent. */
    private record SealedBatchThrowingToken(TestBatch delegate) implements dev.etl.sink.SealedBatch {
        @Override
        public String sinkName() {
            return delegate.sinkName();
        }

        @Override
        public int shard() {
            return delegate.shard();
        }

        @Override
        public long sequence() {
            return delegate.sequence();
        }

        @Override
        public byte[] bytes() {
            return delegate.bytes();
        }

        @Override
        public int byteCount() {
            return delegate.byteCount();
        }

        @Override
        public int rowCount() {
            return delegate.rowCount();
        }

        @Override
        public String dedupToken() {
            throw new LinkageError("token");
        }

        @Override
        public int attempt() {
            return delegate.attempt();
        }
    }

    @Test
    void credentialsNeverAppearInConfigMessagesOrTags() {
        assertThatThrownBy(() -> ClickHouseSinkConfig.builder()
                        .table("shop", "orders")
                        .shard("http://etl:secret@127.0.0.1:18123")
                        .build())
                .hasMessageContaining("user info")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
        ClickHouseSinkConfig cfg = ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard("http://127.0.0.1:18123")
                .credentials("etl", "secret")
                .build();
        ClickHouseShardWriter w = writer(cfg, ClickHouseCapabilities.legacy("18.16.1"));
        transport.failNext("http://127.0.0.1:18123", FakeTransport.connectRefused());
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(TestBatch.of(0, 1)));
        assertThat(e.getMessage()).doesNotContain("secret");
        assertThat(cfg.toString()).doesNotContain("secret");
        assertThat(w.toString()).doesNotContain("secret");
    }

    @Test
    void successIsTimedPerReplica() {
        ClickHouseShardWriter w = writer();
        w.write(TestBatch.of(0, 1));
        assertThat(registry.get("etl.clickhouse.insert.duration")
                        .tags("replica", A, "outcome", "success", "shard", "0", "sink", "orders", "pipeline", "p1")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("etl.clickhouse.replica.healthy")
                        .tag("replica", A)
                        .gauge()
                        .value())
                .isEqualTo(1);
    }

    @Test
    void theInsertCarriesTableAndSettingsInOrderWithTheTokenLast() {
        writer(config().setting("insert_quorum", "2").build(), new ClickHouseCapabilities("24.8", true, true, true))
                .write(TestBatch.of(3, 1));
        ClickHouseInsert insert = transport.inserts.get(0).insert();
        assertThat(insert.database()).isEqualTo("shop");
        assertThat(insert.table()).isEqualTo("orders");
        assertThat(insert.quotedTable()).isEqualTo("`shop`.`orders`");
        assertThat(insert.statement()).isEqualTo("INSERT INTO `shop`.`orders` FORMAT RowBinary");
        assertThat(insert.settings())
                .containsExactly(
                        entry("wait_end_of_query", "1"),
                        entry("insert_deduplicate", "1"),
                        entry("send_progress_in_http_headers", "0"),
                        entry("async_insert", "0"),
                        entry("insert_quorum", "2"),
                        entry("insert_deduplication_token", "tok-3"));
        // the raw HTTP rendering of the same insert
        assertThat(ClickHouseHttpTransport.queryString(insert))
                .isEqualTo(
                        "database=shop"
                                + "&query=INSERT+INTO+%60shop%60.%60orders%60+FORMAT+RowBinary&wait_end_of_query=1&insert_deduplicate=1"
                                + "&send_progress_in_http_headers=0&async_insert=0&insert_quorum=2&insert_deduplication_token=tok-3");
    }

    @Test
    void theInsertNamesTheSinksColumnsInTheirOrderAndTheSameOnEveryAttempt() {
        List<ClickHouseColumn> columns = List.of(
                new ClickHouseColumn("qty", "UInt32"),
                new ClickHouseColumn("order id", "UInt64"),
                new ClickHouseColumn("we`ird", "String"));
        ClickHouseShardWriter w = new ClickHouseShardWriter(
                config().build(),
                columns,
                0,
                "orders",
                "p1",
                ClickHouseCapabilities.legacy("18.16.1"),
                transport,
                registry,
                clock::get,
                () -> {});
        transport.failNext(A, FakeTransport.connectRefused());
        assertThatThrownBy(() -> w.write(TestBatch.of(3, 1))).isInstanceOf(SinkWriteException.class);
        w.write(TestBatch.of(3, 2));
        ClickHouseInsert insert = transport.inserts.get(0).insert();
        assertThat(insert.columns()).containsExactly("qty", "order id", "we`ird");
        assertThat(insert.statement())
                .isEqualTo("INSERT INTO `shop`.`orders` (`qty`, `order id`, `we\\`ird`) FORMAT RowBinary");
        assertThat(transport.inserts.get(0).query())
                .startsWith("database=shop&query=INSERT+INTO+%60shop%60.%60orders%60+"
                        + "%28%60qty%60%2C+%60order+id%60%2C+%60we%5C%60ird%60%29+FORMAT+RowBinary&");
        assertThat(transport.inserts.get(1).query())
                .isEqualTo(transport.inserts.get(0).query());
    }

    @Test
    void aColumnNamedTwiceInAnInsertIsRefused() {
        assertThatThrownBy(() -> new ClickHouseInsert(
                        "d", "t", List.of("a", "b", "a"), java.util.Map.of(), InsertFormat.ROW_BINARY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("named twice");
    }

    @Test
    void identifiersAreQuotedAndQueryAndDatabaseAreNotSettings() {
        assertThat(new ClickHouseInsert("my db", "a`b\\c", java.util.Map.of()).quotedTable())
                .isEqualTo("`my db`.`a\\`b\\\\c`");
        assertThatThrownBy(() -> new ClickHouseInsert("d", "t", java.util.Map.of("query", "DROP TABLE t")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closeRunsTheHookOnce() {
        AtomicLong closes = new AtomicLong();
        ClickHouseShardWriter w = new ClickHouseShardWriter(
                config().build(),
                0,
                "orders",
                "p1",
                ClickHouseCapabilities.legacy("18.16.1"),
                transport,
                registry,
                clock::get,
                closes::incrementAndGet);
        w.close();
        w.close();
        assertThat(closes).hasValue(1);
    }
}
