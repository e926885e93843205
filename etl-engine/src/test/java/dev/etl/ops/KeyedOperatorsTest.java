package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.KeyHashRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The built-in keyed operators on timers (issue 30 item 1): {@link BatchPerKey} emits a key's
 * accumulator at {@code maxRecords}, at {@code maxDelay} by its timer (an idle topic still gets its rows),
 * beyond {@code maxKeys} and at flush, holding exactly the acks of the records each key took;
 * {@link DedupPerKey} drops a key's repeats within its time and forgets keys by its timer.
 */
class KeyedOperatorsTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    private final TestChainContext ctx = new TestChainContext();
    private final AckQueue acks = new AckQueue();
    private final RecordingChunkSink sink = new RecordingChunkSink(1);
    private final ChunkOutbox outbox = ctx.addSink("main", sink);
    private long nextSeq;
    private long nextOffset;

    /** Values "key:n"; the accumulator is "key=n1+n2+…". */
    private Chain batching(int maxRecords, Duration maxDelay, int maxKeys) {
        Chain chain = Chains.from(ctx, STRINGS)
                .process(
                        "per-key",
                        BatchPerKey.<String, String, StringBuilder>by(v -> v.substring(0, v.indexOf(':')))
                                .into(
                                        k -> new StringBuilder(k).append('='),
                                        (sb, v) -> sb.append(sb.charAt(sb.length() - 1) == '=' ? "" : "+")
                                                .append(v.substring(v.indexOf(':') + 1)))
                                .maxRecords(maxRecords)
                                .maxDelay(maxDelay)
                                .maxKeys(maxKeys)
                                .build())
                .map("text", StringBuilder::toString)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();
        return chain;
    }

    private AckRef batch(Chain chain, String... values) {
        AckRef ack = new AckRef(0, 1, nextSeq++, acks);
        ctx.meta().ack(ack);
        chain.onBatch(TestPartitionBatch.from(nextOffset, values));
        nextOffset += values.length;
        ack.release(true);
        ctx.meta().ack(null);
        return ack;
    }

    private List<String> written() {
        List<String> rows = RowBinaryStrings.decode(outbox.chunk(0));
        Chunk chunk = outbox.chunk(0);
        chunk.succeedAcks();
        outbox.flush();
        return rows;
    }

    private List<AckRef> posted() {
        List<AckRef> posted = new ArrayList<>();
        acks.drain(posted::add);
        return posted;
    }

    @Test
    void aKeyIsEmittedAtMaxRecordsAndHoldsOnlyItsOwnRecordsBatches() {
        Chain chain = batching(2, Duration.ofHours(1), 100);
        AckRef first = batch(chain, "a:1", "b:1");
        AckRef second = batch(chain, "a:2");
        assertThat(written()).containsExactly("a=1+2");
        assertThat(posted())
                .as("the second batch is written; the first still has b:1 kept")
                .containsExactly(second);
        AckRef third = batch(chain, "b:2");
        assertThat(written()).containsExactly("b=1+2");
        assertThat(posted()).containsExactly(first, third);
    }

    @Test
    void anIdleKeyIsEmittedByTheTimerAtMaxDelay() {
        Chain chain = batching(1_000, Duration.ofSeconds(5), 100);
        AckRef ack = batch(chain, "a:1", "a:2");
        ctx.advance(Duration.ofMillis(4_999));
        assertThat(ctx.fireDueTimers()).isZero();
        ctx.advance(Duration.ofMillis(1));
        assertThat(ctx.fireDueTimers()).isEqualTo(1);
        assertThat(written()).containsExactly("a=1+2");
        assertThat(posted()).containsExactly(ack);
        ctx.advance(Duration.ofHours(1));
        assertThat(ctx.fireDueTimers()).as("nothing open: no timer").isZero();
    }

    @Test
    void theTimerEmitsOnlyTheKeysThatAreDue() {
        Chain chain = batching(1_000, Duration.ofSeconds(5), 100);
        batch(chain, "a:1");
        ctx.advance(Duration.ofSeconds(3));
        batch(chain, "b:1");
        ctx.advance(Duration.ofSeconds(2));
        ctx.fireDueTimers();
        assertThat(written()).containsExactly("a=1");
        ctx.advance(Duration.ofSeconds(3));
        ctx.fireDueTimers();
        assertThat(written()).containsExactly("b=1");
    }

    @Test
    void beyondMaxKeysTheOldestIsEmittedFirstAndFlushEmitsTheRest() {
        Chain chain = batching(1_000, Duration.ofHours(1), 2);
        batch(chain, "a:1", "b:1", "c:1");
        assertThat(written()).containsExactly("a=1");
        chain.flush();
        assertThat(written()).containsExactly("b=1", "c=1");
    }

    @Test
    void dedupDropsAKeysRepeatsWithinItsTimeAndPassesThemAfterwards() {
        Chain chain = Chains.from(ctx, STRINGS)
                .process(
                        "dedup",
                        DedupPerKey.<String, String>by(v -> v.substring(0, v.indexOf(':')))
                                .within(Duration.ofSeconds(10))
                                .build())
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();
        AckRef ack = batch(chain, "a:1", "b:1", "a:2");
        assertThat(written()).containsExactly("a:1", "b:1");
        assertThat(posted())
                .as("a dropped repeat holds nothing: the batch resolves")
                .containsExactly(ack);
        ctx.advance(Duration.ofSeconds(10));
        assertThat(ctx.fireDueTimers()).isEqualTo(1);
        batch(chain, "a:3");
        assertThat(written()).as("a's time is up: a new first value").containsExactly("a:3");
        assertThat(ctx.meterRegistry().get("etl.ops.dedup.dropped").counter().count())
                .isEqualTo(1);
    }
}
