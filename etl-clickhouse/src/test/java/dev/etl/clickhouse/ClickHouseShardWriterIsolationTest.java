package dev.etl.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.etl.error.SinkWriteException;
import dev.etl.sink.RowBuffer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The shard writer isolating the rows the server refuses for their content (issue 30 item 5), against a
 * transport that refuses any insert holding a marked row, as 18.16 refuses a whole insert when a
 * {@code MATERIALIZED throwIf} fails for one of its rows, and that deduplicates what it stored by token
 * (servers that know {@code insert_deduplication_token}) or by content (18.16's block checksum).
 */
class ClickHouseShardWriterIsolationTest {
    private static final String A = "http://127.0.0.1:18123";
    private static final String B = "http://127.0.0.1:18124";
    private static final String THROW_IF = "Code: 395, e.displayText() = DB::Exception: Value passed to 'throwIf' "
            + "function is non zero, e.what() = DB::Exception";
    private static final byte[] MARK = "BAD!".getBytes(StandardCharsets.US_ASCII);

    record Row(long id, String name) {}

    private static final RowBinaryEncoder<Row> ENCODER = RowBinaryEncoder.<Row>builder()
            .uint64("id", Row::id)
            .nullableString("name", Row::name)
            .build();

    private static final ClickHouseCapabilities LEGACY = ClickHouseCapabilities.legacy("18.16.1");
    private static final ClickHouseCapabilities TOKENS = new ClickHouseCapabilities("24.8", true, true, true);

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** Refuses (395) any insert holding a marked row; stores the rest once per token or content. */
    static final class RefusingTransport implements ClickHouseTransport {
        final List<FakeTransport.Request> inserts = new ArrayList<>();
        final Map<Long, Integer> stored = new TreeMap<>();
        final Set<String> blocks = new HashSet<>();
        int deduplicated;
        /** The insert (0-based) that fails with {@link #failure} instead, or -1. */
        int failAt = -1;

        ClickHouseRequestException failure = FakeTransport.connectRefused();
        ClickHouseRequestException refusal = FakeTransport.http(500, THROW_IF);
        /** Whether the first insert is refused whatever it holds (the server refuses only the whole). */
        boolean refuseFirst;

        @Override
        public synchronized long insert(URI replica, ClickHouseInsert insert, byte[] body, int length)
                throws ClickHouseRequestException {
            byte[] copy = Arrays.copyOf(body, length);
            int n = inserts.size();
            inserts.add(new FakeTransport.Request(
                    ClickHouseShardWriter.describe(replica),
                    ClickHouseHttpTransport.queryString(insert),
                    length,
                    insert,
                    copy));
            if (n == failAt) {
                throw failure;
            }
            if ((refuseFirst && n == 0) || indexOf(copy, MARK) >= 0) {
                throw refusal;
            }
            String token = insert.settings().get("insert_deduplication_token");
            if (!blocks.add(token != null ? token : sha256(copy))) {
                deduplicated++;
                return 0;
            }
            for (long id : ids(copy, insert.format())) {
                stored.merge(id, 1, Integer::sum);
            }
            return WRITTEN_UNKNOWN;
        }

        @Override
        public String query(URI replica, String sql) {
            return "";
        }

        synchronized List<String> tokens() {
            return inserts.stream()
                    .map(r -> r.insert().settings().get("insert_deduplication_token"))
                    .toList();
        }
    }

    private ClickHouseShardWriter writer(
            RefusingTransport transport,
            ClickHouseCapabilities caps,
            InsertFormat format,
            List<ClickHouseColumn> cols) {
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A, B)
                .breaker(2, Duration.ofSeconds(5))
                .format(format)
                .build();
        return new ClickHouseShardWriter(
                config, cols, 0, "orders", "p1", caps, transport, registry, clock::get, () -> {});
    }

    private ClickHouseShardWriter writer(RefusingTransport transport, ClickHouseCapabilities caps) {
        return writer(transport, caps, InsertFormat.ROW_BINARY, ENCODER.columns());
    }

    /** Rows 0..rows-1 (id = index + 1000), those of {@code bad} marked. */
    private static TestBatch batch(long sequence, int rows, int... bad) {
        Set<Integer> marked = new HashSet<>();
        for (int b : bad) {
            marked.add(b);
        }
        RowBuffer out = new RowBuffer(64);
        for (int i = 0; i < rows; i++) {
            ENCODER.encode(new Row(1000 + i, marked.contains(i) ? "BAD!" + i : (i % 3 == 0 ? null : "ok" + i)), out);
        }
        return new TestBatch("orders", 0, sequence, out.toByteArray(), out.length(), rows, "tok-" + sequence, 1);
    }

    private static Map<Long, Integer> onceEach(int rows, int... bad) {
        Map<Long, Integer> expected = new TreeMap<>();
        Set<Integer> marked = new HashSet<>();
        for (int b : bad) {
            marked.add(b);
        }
        for (int i = 0; i < rows; i++) {
            if (!marked.contains(i)) {
                expected.put(1000L + i, 1);
            }
        }
        return expected;
    }

    private double pieces(String outcome) {
        return registry.find("etl.clickhouse.isolation.inserts").tag("outcome", outcome).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    void theRefusedRowsAreNamedAndEveryOtherRowIsWrittenOnce() {
        RefusingTransport transport = new RefusingTransport();
        ClickHouseShardWriter w = writer(transport, LEGACY);
        SinkWriteException e =
                catchThrowableOfType(SinkWriteException.class, () -> w.write(batch(7, 100, 3, 41, 42, 99)));
        assertThat(e.isRejection()).isTrue();
        assertThat(e.isTransient()).isFalse();
        assertThat(e.rejectedRows()).containsExactly(3, 41, 42, 99);
        assertThat(transport.stored).isEqualTo(onceEach(100, 3, 41, 42, 99));
        assertThat(e)
                .hasMessageContaining("ClickHouse sink 'orders' shard 0 table shop.orders")
                .hasMessageContaining("refused 4 of the 100 rows of batch 7")
                .hasMessageContaining("rows [3, 41, 42, 99]")
                .hasMessageContaining("the other 96 rows are written")
                .hasMessageContaining("codes {395=4}")
                .hasMessageContaining("The server's answer for row 3: HTTP 500: " + THROW_IF);
        assertThat(e.getCause()).isInstanceOf(ClickHouseRequestException.class);
        // every insert after the first is a piece, counted by outcome; the server answered: breakers untouched
        assertThat(pieces("success") + pieces("rejected")).isEqualTo(transport.inserts.size() - 1);
        assertThat(pieces("rejected")).isGreaterThanOrEqualTo(4);
        assertThat(w.replicaStatus())
                .allSatisfy(r -> assertThat(r.consecutiveFailures()).isZero());
        assertThat(transport.inserts.size()).isLessThanOrEqualTo(1 + ClickHouseShardWriter.maxIsolationInserts(100));
        // 18.16 knows no tokens: none is sent
        assertThat(transport.tokens()).containsOnlyNulls();
    }

    @Test
    void thePiecesAndTheirTokensAreTheSameOnEveryRun() {
        RefusingTransport first = new RefusingTransport();
        RefusingTransport second = new RefusingTransport();
        TestBatch batch = batch(3, 64, 10, 11, 50);
        for (RefusingTransport t : List.of(first, second)) {
            SinkWriteException e = catchThrowableOfType(
                    SinkWriteException.class, () -> writer(t, TOKENS).write(batch));
            assertThat(e.rejectedRows()).containsExactly(10, 11, 50);
            assertThat(t.stored).isEqualTo(onceEach(64, 10, 11, 50));
        }
        assertThat(second.tokens()).isEqualTo(first.tokens());
        for (int i = 0; i < first.inserts.size(); i++) {
            assertThat(second.inserts.get(i).body())
                    .isEqualTo(first.inserts.get(i).body());
        }
        List<String> tokens = first.tokens();
        assertThat(tokens.get(0)).isEqualTo("tok-3");
        assertThat(tokens.subList(1, tokens.size()))
                .allSatisfy(t -> assertThat(t).matches("tok-3~\\d+-\\d+~[0-9a-f]{16}"))
                .doesNotHaveDuplicates();
        // depth first, left half first
        assertThat(tokens.get(1)).startsWith("tok-3~0-32~");
        assertThat(tokens.get(2)).startsWith("tok-3~0-16~");
        assertThat(tokens.get(3)).startsWith("tok-3~0-8~");
        assertThat(tokens.get(4)).startsWith("tok-3~8-16~");
    }

    @Test
    void aPieceThatFailsTransientlyFailsTheWriteAndTheRetryDropsThePiecesAlreadyWritten() {
        for (ClickHouseCapabilities caps : List.of(LEGACY, TOKENS)) {
            RefusingTransport transport = new RefusingTransport();
            transport.failAt = 6;
            ClickHouseShardWriter w = writer(transport, caps);
            TestBatch batch = batch(9, 40, 5, 33);
            SinkWriteException first = catchThrowableOfType(SinkWriteException.class, () -> w.write(batch));
            assertThat(first.isTransient()).isTrue();
            assertThat(first.isRejection()).isFalse();
            assertThat(first)
                    .hasMessageContaining("isolating the rows the server refuses in batch 9")
                    .hasMessageContaining("failed transiently")
                    .hasMessageContaining("cannot connect");
            assertThat(transport.stored).isNotEmpty();
            SinkWriteException second = catchThrowableOfType(SinkWriteException.class, () -> w.write(batch.retry()));
            assertThat(second.rejectedRows()).containsExactly(5, 33);
            assertThat(transport.stored).as(caps.version()).isEqualTo(onceEach(40, 5, 33));
            assertThat(transport.deduplicated).isPositive();
        }
    }

    @Test
    void aConfigurationErrorOfAPieceFailsTheWritePermanentlyWithoutRejectingRows() {
        RefusingTransport transport = new RefusingTransport();
        transport.failAt = 2;
        transport.failure = FakeTransport.http(
                404, "Code: 60, e.displayText() = DB::Exception: Table shop.orders " + "doesn't exist.");
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> writer(transport, LEGACY).write(batch(1, 10, 7)));
        assertThat(e.isTransient()).isFalse();
        assertThat(e.isRejection()).isFalse();
        assertThat(e).hasMessageContaining("failed permanently").hasMessageContaining("Code: 60");
    }

    @Test
    void moreThanHalfTheRowsRefusedIsAMismatchNotBadRows() {
        RefusingTransport transport = new RefusingTransport();
        int[] all = IntStream.range(0, 30).toArray();
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> writer(transport, LEGACY).write(batch(2, 30, all)));
        assertThat(e.isTransient()).isFalse();
        assertThat(e.isRejection()).isFalse();
        assertThat(e)
                .hasMessageContaining("refused 16 of the 30 rows of batch 2 (more than half, codes {395=16}")
                .hasMessageContaining("mismatch")
                .hasMessageContaining("failing the batch instead of dropping its rows");
        // it stopped at the 16th refused row
        assertThat(pieces("rejected")).isLessThan(2 * 30);
        assertThat(transport.stored).isEmpty();
        // at most STORM_MIN_ROWS - 1 refused rows are never a storm, however small the batch
        RefusingTransport small = new RefusingTransport();
        SinkWriteException few = catchThrowableOfType(
                SinkWriteException.class, () -> writer(small, LEGACY).write(batch(3, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8)));
        assertThat(few.rejectedRows()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(small.stored).isEqualTo(onceEach(12, 0, 1, 2, 3, 4, 5, 6, 7, 8));
    }

    @Test
    void tooManyRefusedRowsToIsolateWithinTheInsertBudgetIsAMismatchToo() {
        RefusingTransport transport = new RefusingTransport();
        int[] everyThird = IntStream.range(0, 1000).filter(i -> i % 3 == 0).toArray();
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> writer(transport, LEGACY).write(batch(4, 1000, everyThird)));
        assertThat(e.isRejection()).isFalse();
        assertThat(e.isTransient()).isFalse();
        assertThat(ClickHouseShardWriter.maxIsolationInserts(1000)).isEqualTo(200);
        assertThat(e).hasMessageContaining("needs more than 200 inserts").hasMessageContaining("codes {395=");
        assertThat(transport.inserts).hasSize(1 + 200);
    }

    @Test
    void tenRefusedRowsAnywhereAreAlwaysIsolated() {
        int rows = 10_000;
        int[] spread = IntStream.range(0, ClickHouseShardWriter.STORM_MIN_ROWS)
                .map(i -> i * (rows / ClickHouseShardWriter.STORM_MIN_ROWS) + 517)
                .toArray();
        RefusingTransport transport = new RefusingTransport();
        SinkWriteException e = catchThrowableOfType(
                SinkWriteException.class, () -> writer(transport, LEGACY).write(batch(5, rows, spread)));
        assertThat(e.rejectedRows()).containsExactly(spread);
        assertThat(transport.stored).isEqualTo(onceEach(rows, spread));
        assertThat(transport.inserts.size() - 1).isLessThanOrEqualTo(ClickHouseShardWriter.maxIsolationInserts(rows));
    }

    @Test
    void nativePiecesAreBlocksOfTheirOwnRows() {
        RefusingTransport transport = new RefusingTransport();
        ClickHouseShardWriter w = writer(transport, TOKENS, InsertFormat.NATIVE, ENCODER.columns());
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(batch(6, 20, 5, 6)));
        assertThat(e.rejectedRows()).containsExactly(5, 6);
        assertThat(transport.stored).isEqualTo(onceEach(20, 5, 6));
        for (FakeTransport.Request r : transport.inserts) {
            assertThat(r.insert().format()).isEqualTo(InsertFormat.NATIVE);
            String token = r.insert().settings().get("insert_deduplication_token");
            int rows = token.contains("~") ? rowsOf(token) : 20;
            assertThat(nativeRowCount(r.body())).as(token).isEqualTo(rows);
        }
    }

    @Test
    void whenTheServerAcceptsEveryPieceTheWriteSucceeds() {
        RefusingTransport transport = new RefusingTransport();
        transport.refuseFirst = true;
        writer(transport, LEGACY).write(batch(8, 10));
        assertThat(transport.stored).isEqualTo(onceEach(10));
        assertThat(transport.inserts).hasSize(3); // the whole, then its two halves
    }

    @Test
    void withoutTheColumnsARefusalFailsTheBatchSayingWhyButASingleRowIsRejected() {
        RefusingTransport transport = new RefusingTransport();
        ClickHouseShardWriter w = writer(transport, LEGACY, InsertFormat.ROW_BINARY, List.of());
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> w.write(batch(1, 3, 1)));
        assertThat(e.isRejection()).isFalse();
        assertThat(e.isTransient()).isFalse();
        assertThat(e)
                .hasMessageContaining(THROW_IF)
                .hasMessageContaining("cannot be isolated from the others")
                .hasMessageContaining("without its columns");
        assertThat(transport.inserts).hasSize(1);
        SinkWriteException single = catchThrowableOfType(SinkWriteException.class, () -> w.write(batch(2, 1, 0)));
        assertThat(single.rejectedRows()).containsExactly(0);
        assertThat(transport.inserts).hasSize(2);
    }

    @Test
    void aCodeTheSinkDeclaresARejectionIsIsolatedInsteadOfRetried() {
        RefusingTransport transport = new RefusingTransport();
        transport.refusal = FakeTransport.http(500, "Code: 1234, e.displayText() = DB::Exception: a new check");
        SinkWriteException unknown = catchThrowableOfType(
                SinkWriteException.class, () -> writer(transport, LEGACY).write(batch(1, 8, 2)));
        assertThat(unknown.isTransient()).isTrue();
        ClickHouseSinkConfig config = ClickHouseSinkConfig.builder()
                .table("shop", "orders")
                .shard(A, B)
                .rejectionCodes(1234)
                .build();
        ClickHouseShardWriter declared = new ClickHouseShardWriter(
                config, ENCODER.columns(), 0, "orders", "p1", LEGACY, transport, registry, clock::get, () -> {});
        SinkWriteException e = catchThrowableOfType(SinkWriteException.class, () -> declared.write(batch(1, 8, 2)));
        assertThat(e.rejectedRows()).containsExactly(2);
    }

    // ---------------------------------------------------------------- decoding what the transport stored

    private static int rowsOf(String pieceToken) {
        String range = pieceToken.split("~")[1];
        String[] bounds = range.split("-");
        return Integer.parseInt(bounds[1]) - Integer.parseInt(bounds[0]);
    }

    private static int indexOf(byte[] body, byte[] mark) {
        outer:
        for (int i = 0; i + mark.length <= body.length; i++) {
            for (int k = 0; k < mark.length; k++) {
                if (body[i + k] != mark[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The ids of the rows of a RowBinary body (UInt64, Nullable(String)) or of a Native block's first column. */
    static List<Long> ids(byte[] body, InsertFormat format) {
        List<Long> ids = new ArrayList<>();
        int[] at = {0};
        if (format == InsertFormat.NATIVE) {
            varUInt(body, at); // columns
            int rows = (int) varUInt(body, at);
            skipString(body, at); // name
            skipString(body, at); // type
            for (int r = 0; r < rows; r++) {
                ids.add(uint64(body, at));
            }
            return ids;
        }
        while (at[0] < body.length) {
            ids.add(uint64(body, at));
            if (body[at[0]++] == 0) {
                skipString(body, at);
            }
        }
        return ids;
    }

    private static void skipString(byte[] b, int[] at) {
        int length = (int) varUInt(b, at); // advances at[0] past the length first
        at[0] += length;
    }

    private static int nativeRowCount(byte[] block) {
        int[] at = {0};
        varUInt(block, at);
        return (int) varUInt(block, at);
    }

    private static long uint64(byte[] b, int[] at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v |= (b[at[0] + i] & 0xFFL) << (8 * i);
        }
        at[0] += 8;
        return v;
    }

    private static long varUInt(byte[] b, int[] at) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[at[0]++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
