package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.etl.deser.Deserializer;
import dev.etl.error.DeserializationException;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.error.FatalPipelineException;
import dev.etl.error.RecordException;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.RowEncoder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChainErrorPolicyTest {
    /** Values starting with '!' are undecodable; schema id 7. */
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> {
        String s = value.toUtf8String();
        if (s.startsWith("!")) {
            throw DeserializationException.of(7, "bad magic byte", null);
        }
        out.collect(s);
    };

    private static Integer parse(String s) throws Exception {
        if (s.startsWith("x")) {
            throw new java.io.IOException("not a number: " + s);
        }
        return Integer.valueOf(s);
    }

    private final TestChainContext ctx = new TestChainContext();
    private final AckQueue acks = new AckQueue();
    private final AckRef ack = new AckRef(0, 1, 1, acks);
    private ChunkOutbox outbox;

    @BeforeEach
    void laneHoldsAnAck() {
        outbox = ctx.addSink("main", new RecordingChunkSink(1));
        ctx.meta().ack(ack);
    }

    private Chain parsingChain(ErrorPolicy declared) {
        return Chains.from(ctx, STRINGS)
                .tryMap("parse", ChainErrorPolicyTest::parse, declared)
                .map("double", i -> i * 2)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
    }

    @Test
    void tryMapUnderSkipDropsTheRecordAndReportsStagePartitionAndOffset() {
        Chain chain = parsingChain(ErrorPolicy.SKIP);

        chain.onBatch(TestPartitionBatch.from(10, "1", "x2", "3"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("2", "6");
        assertThat(ctx.skipped()).singleElement().satisfies(failure -> {
            assertThat(failure.errorClass()).isEqualTo(ErrorClass.OPERATOR);
            assertThat(failure.stage()).isEqualTo("parse");
            assertThat(failure.partitionName()).isEqualTo("orders-0");
            assertThat(failure.offset()).isEqualTo(11);
            assertThat(failure).hasCauseInstanceOf(java.io.IOException.class).hasMessageContaining("not a number: x2");
        });
    }

    @Test
    void skippedRecordsTakeNoAckReference() {
        Chain chain = parsingChain(ErrorPolicy.SKIP);

        chain.onBatch(TestPartitionBatch.of("x1", "x2"));
        ack.release(true);

        assertThat(outbox.chunk(0).isEmpty()).isTrue();
        assertThat(ack.refCount()).isZero();
        assertThat(ack.succeeded()).isTrue();
        assertThat(acks.isEmpty()).isFalse();
    }

    @Test
    void tryMapUnderFailThrowsNamingStagePartitionAndOffset() {
        Chain chain = parsingChain(ErrorPolicy.FAIL);

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(10, "1", "x2", "3")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'parse'")
                .hasMessageContaining("orders-0@11")
                .hasMessageContaining("not a number: x2")
                .hasCauseInstanceOf(RecordException.class)
                .hasRootCauseInstanceOf(java.io.IOException.class);
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("2");
    }

    @Test
    void configurationOverridesTheDeclaredSkipWithFail() {
        ctx.override("parse", ErrorPolicy.FAIL);
        Chain chain = parsingChain(ErrorPolicy.SKIP);

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("x1"))).isInstanceOf(FatalPipelineException.class);
        assertThat(ctx.skipped()).isEmpty();
    }

    @Test
    void configurationOverridesTheDeclaredFailWithSkip() {
        ctx.override("parse", ErrorPolicy.SKIP);
        Chain chain = parsingChain(ErrorPolicy.FAIL);

        chain.onBatch(TestPartitionBatch.of("x1", "4"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("8");
        assertThat(ctx.skipped()).extracting(RecordException::stage).containsExactly("parse");
    }

    @Test
    void anExceptionFromAPlainMapFailsThePipelineByDefault() {
        Chain chain = Chains.from(ctx, STRINGS)
                .map("length-of-second-char", s -> s.charAt(1))
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(5, "ab", "c")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'length-of-second-char' failed at orders-0@6")
                .satisfies(e ->
                        assertThat(((FatalPipelineException) e).errorClass()).isEqualTo(ErrorClass.OPERATOR));
    }

    @Test
    void anExceptionFromAPlainFilterIsSkippedWhenConfigured() {
        ctx.override("filter#1", ErrorPolicy.SKIP);
        Chain chain = Chains.from(ctx, STRINGS)
                .filter(s -> s.charAt(1) == 'b')
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.of("ab", "c", "cb"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("ab", "cb");
        assertThat(ctx.skipped())
                .extracting(RecordException::stage, RecordException::offset)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("filter#1", 11L));
    }

    @Test
    void aDownstreamFailureIsNotMistakenForTheFailureOfAnUpstreamSkipStage() {
        ctx.override("split", ErrorPolicy.SKIP);
        RowEncoder<Object> failing = (value, meta, out) -> {
            throw new IllegalStateException("column overflow");
        };
        Chain chain = Chains.from(ctx, STRINGS)
                .<String>flatMap("split", (s, out) -> out.collect(s))
                .sink(failing, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("a")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'sink-main'")
                .satisfies(e ->
                        assertThat(((FatalPipelineException) e).errorClass()).isEqualTo(ErrorClass.ENCODE));
        assertThat(ctx.skipped()).isEmpty();
    }

    // ---- a deserializer that emits several values per payload -------------------------------

    /**
     * Emits every comma-separated part, except those starting with '!', then fails the payload once
     * for them: what a multi-document deserializer (NDJSON, a JSON array) does with a partly bad message.
     */
    private static final Deserializer<String> PARTS = (key, value, meta, out) -> {
        StringBuilder bad = new StringBuilder();
        for (String part : value.toUtf8String().split(",")) {
            if (part.startsWith("!")) {
                bad.append(part);
            } else {
                out.collect(part);
            }
        }
        if (bad.length() > 0) {
            throw DeserializationException.of(-1, "bad parts " + bad, null);
        }
    };

    @Test
    void valuesEmittedBeforeTheDeserializerThrewStayDeliveredUnderSkipAndThePayloadCountsOneSkip() {
        Chain chain =
                Chains.from(ctx, PARTS, ErrorPolicy.SKIP).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.from(10, "a,!b,c,!d", "e"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("a", "c", "e");
        assertThat(ctx.skipped()).singleElement().satisfies(failure -> {
            assertThat(failure.stage()).isEqualTo("deserialize");
            assertThat(failure.offset()).isEqualTo(10);
            assertThat(failure).hasMessageContaining("bad parts !b!d");
        });
    }

    @Test
    void valuesEmittedBeforeTheDeserializerThrewUnderFailAreInTheChunkButThePipelineFails() {
        Chain chain = Chains.from(ctx, PARTS).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(10, "a,!b,c", "e")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'deserialize' failed at orders-0@10: bad parts !b");
        // The chunk holds the batch's ack, which a failed pipeline never releases as succeeded: nothing commits.
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("a", "c");
    }

    // ---- encode -----------------------------------------------------------------------------

    /** Writes half a row for "bad" values before failing. */
    private static final RowEncoder<String> HALF_WRITING = (value, meta, out) -> {
        out.writeVarUInt(100).writeByte('z');
        if (value.equals("bad")) {
            throw new IllegalArgumentException("value too long for FixedString(3)");
        }
        out.truncate(out.length() - 2);
        out.writeString(value);
    };

    @Test
    void anEncodeFailureCutsThePartialRowAndFailsByDefault() {
        Chain chain = Chains.from(ctx, STRINGS).sink(HALF_WRITING, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(10, "ok", "bad", "never")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'sink-main' failed at orders-0@11")
                .hasMessageContaining("FixedString(3)");

        assertThat(outbox.chunk(0).rows().toByteArray()).containsExactly(2, 'o', 'k');
        assertThat(outbox.chunk(0).rowCount()).isEqualTo(1);
    }

    @Test
    void anEncodeFailureUnderSkipLeavesTheChunkWithExactlyTheGoodRows() {
        ctx.override("sink-main", ErrorPolicy.SKIP);
        Chain chain = Chains.from(ctx, STRINGS).sink(HALF_WRITING, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.from(10, "ok", "bad", "yes"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("ok", "yes");
        assertThat(outbox.chunk(0).rowCount()).isEqualTo(2);
        assertThat(ctx.skipped()).singleElement().satisfies(failure -> {
            assertThat(failure.errorClass()).isEqualTo(ErrorClass.ENCODE);
            assertThat(failure.offset()).isEqualTo(11);
        });
    }

    @Test
    void anEncodeFailureOfTheOnlyRowLeavesNoAckReference() {
        ctx.override("sink-main", ErrorPolicy.SKIP);
        Chain chain = Chains.from(ctx, STRINGS).sink(HALF_WRITING, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.of("bad"));

        assertThat(outbox.chunk(0).isEmpty()).isTrue();
        assertThat(outbox.chunk(0).byteCount()).isZero();
        assertThat(ack.refCount()).isEqualTo(1);
    }

    @Test
    void aShardOutsideTheSinkIsAlwaysFatal() {
        ctx.override("sink-main", ErrorPolicy.SKIP);
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, (value, meta, shardCount) -> shardCount);

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.of("a")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("returned shard 1")
                .hasMessageContaining("[0, 1)")
                .hasMessageContaining("orders-0@10");
    }

    // ---- deserialize ------------------------------------------------------------------------

    @Test
    void aBadPayloadFailsThePipelineByDefaultWithItsPosition() {
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(20, "a", "!b", "c")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("stage 'deserialize' failed at orders-0@21")
                .hasMessageContaining("schema id 7")
                .cause()
                .asInstanceOf(type(DeserializationException.class))
                .satisfies(cause -> {
                    assertThat(cause.offset()).isEqualTo(21);
                    assertThat(cause.partitionName()).isEqualTo("orders-0");
                    assertThat(cause.schemaId()).isEqualTo(7);
                });
        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("a");
    }

    @Test
    void aBadPayloadIsSkippedWhenConfiguredAndTheRestOfTheBatchFlows() {
        ctx.override("deserialize", ErrorPolicy.SKIP);
        Chain chain = Chains.from(ctx, STRINGS).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.from(20, "a", "!b", "c"));

        assertThat(RowBinaryStrings.decode(outbox.chunk(0))).containsExactly("a", "c");
        assertThat(ctx.skipped()).singleElement().isInstanceOfSatisfying(DeserializationException.class, failure -> {
            assertThat(failure.errorClass()).isEqualTo(ErrorClass.DESERIALIZATION);
            assertThat(failure.stage()).isEqualTo("deserialize");
            assertThat(failure.offset()).isEqualTo(21);
            assertThat(failure.schemaId()).isEqualTo(7);
        });
    }

    @Test
    void anyExceptionFromTheDeserializerIsADeserializationFailure() {
        Deserializer<String> throwing = (key, value, meta, out) -> {
            throw new ArrayIndexOutOfBoundsException("truncated");
        };
        Chain chain = Chains.from(ctx, throwing, ErrorPolicy.SKIP)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        chain.onBatch(TestPartitionBatch.of("a"));

        assertThat(ctx.skipped()).singleElement().isInstanceOfSatisfying(DeserializationException.class, failure -> {
            assertThat(failure.schemaId()).isEqualTo(-1);
            assertThat(failure)
                    .hasMessageContaining("truncated")
                    .hasCauseInstanceOf(ArrayIndexOutOfBoundsException.class);
        });
    }

    @Test
    void aFatalDeserializerFailureWithAnUnplacedCauseNamesThePartitionAsTheSourceDoes() {
        // What AvroDeserializer throws when the registry is down (it knows no partition name).
        Deserializer<String> registryDown = (key, value, meta, out) -> {
            if (value.toUtf8String().startsWith("!")) {
                throw new FatalPipelineException(
                        ErrorClass.DESERIALIZATION,
                        "registry down",
                        DeserializationException.of(3, "registry unavailable", null));
            }
            out.collect(value.toUtf8String());
        };
        Chain chain = Chains.from(ctx, registryDown).sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());

        assertThatThrownBy(() -> chain.onBatch(TestPartitionBatch.from(40, "1", "!2")))
                .isInstanceOf(FatalPipelineException.class)
                .hasMessageContaining("orders-0@41")
                .hasMessageContaining("registry unavailable (schema id 3)")
                .hasMessageNotContaining("partition#")
                .extracting(Throwable::getCause, type(DeserializationException.class))
                .satisfies(cause -> {
                    assertThat(cause.partitionName()).isEqualTo("orders-0");
                    assertThat(cause.offset()).isEqualTo(41);
                });
    }
}
