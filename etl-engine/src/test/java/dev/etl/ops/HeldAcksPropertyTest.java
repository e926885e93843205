package dev.etl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.deser.Deserializer;
import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.internal.sink.Chunk;
import dev.etl.internal.sink.ChunkOutbox;
import dev.etl.record.Collector;
import dev.etl.sink.ChunkConfig;
import dev.etl.sink.KeyHashRouter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded randomized harness against a reference model: a buffering operator that emits its buffer
 * (as one row per emission, or one row per value) at random points, random batch sizes, random
 * hand-offs and write outcomes in random order, and at the end a flush or a teardown. After every
 * step: a batch is posted exactly when every record of it has been emitted in rows that are all
 * resolved, with success exactly when all of those writes succeeded; after a teardown every batch
 * with a record still buffered is posted as failed.
 */
class HeldAcksPropertyTest {
    private static final Deserializer<String> STRINGS = (key, value, meta, out) -> out.collect(value.toUtf8String());

    /** Buffers record ids; emits them at random (all in one row, or one row each). */
    static final class RandomEmitter implements StatefulOperator<String, String> {
        private final SplittableRandom random;
        private final List<String> buffer = new ArrayList<>();
        /** Model side: the records of each emission (they share one ack, so one fate). */
        final Map<Integer, List<Integer>> emissionOf = new HashMap<>();

        private HeldAcks held;

        RandomEmitter(SplittableRandom random) {
            this.random = random;
        }

        @Override
        public void open(OperatorContext context) {
            held = context.heldAcks();
        }

        @Override
        public void process(String in, Collector<? super String> out) {
            if (random.nextInt(4) == 0 && !buffer.isEmpty()) {
                flush(out); // emit before holding: the new record starts the next buffer
            }
            buffer.add(in);
            held.holdCurrent();
            if (random.nextInt(5) == 0) {
                flush(out); // emit including the current record
            }
        }

        @Override
        public void flush(Collector<? super String> out) {
            if (buffer.isEmpty()) {
                return;
            }
            List<Integer> members = new ArrayList<>();
            for (String id : buffer) {
                members.add(Integer.parseInt(id));
                emissionOf.put(Integer.parseInt(id), members);
            }
            try (HeldAcks.Emission<String> emission = held.emit(out)) {
                if (random.nextBoolean()) {
                    emission.collect(String.join(",", buffer));
                } else {
                    for (String id : buffer) {
                        emission.collect(id);
                    }
                }
            }
            buffer.clear();
        }
    }

    @Test
    void batchesResolveExactlyWhenEverythingEmittedForThemIsResolved() {
        for (long seed = 1; seed <= 300; seed++) {
            trial(seed);
        }
    }

    private void trial(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        TestChainContext ctx = new TestChainContext();
        RecordingChunkSink sink = new RecordingChunkSink(1);
        ChunkOutbox outbox = ctx.addSink("main", sink, new ChunkConfig(1 + random.nextInt(6), Integer.MAX_VALUE));
        AckQueue queue = new AckQueue();
        RandomEmitter operator = new RandomEmitter(random.split());
        Chain chain = Chains.from(ctx, STRINGS)
                .process("random", operator)
                .sink(RowBinaryStrings.ENCODER, KeyHashRouter.byRecordKey());
        chain.open();

        Map<Integer, List<Integer>> recordsOfBatch = new HashMap<>();
        Map<Integer, Integer> batchOfRecord = new HashMap<>();
        Map<Integer, Boolean> outcome = new HashMap<>(); // record -> written (true) / failed (false); absent: pending
        Map<AckRef, Integer> batchOfAck = new HashMap<>();
        Map<Integer, Boolean> posted = new HashMap<>();
        List<Chunk> handedOff = sink.handedOff();
        int written = 0;
        int nextRecord = 0;
        int batches = 5 + random.nextInt(25);
        String where = "seed " + seed;

        for (int b = 0; b < batches; b++) {
            int size = 1 + random.nextInt(5);
            String[] values = new String[size];
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                values[i] = Integer.toString(nextRecord);
                batchOfRecord.put(nextRecord, b);
                ids.add(nextRecord++);
            }
            recordsOfBatch.put(b, ids);
            AckRef ack = new AckRef(0, 1, b, queue);
            batchOfAck.put(ack, b);
            ctx.meta().ack(ack);
            chain.onBatch(TestPartitionBatch.from(nextRecord - size, values));
            ack.release(true);
            ctx.meta().ack(null);

            if (random.nextBoolean()) {
                outbox.flush();
            }
            while (written < handedOff.size() && random.nextInt(3) != 0) {
                written = write(handedOff, written, random, outcome);
            }
            check(queue, batchOfAck, posted, recordsOfBatch, outcome, operator.emissionOf, where);
        }

        if (random.nextBoolean()) {
            chain.flush();
            outbox.flush();
            while (written < handedOff.size()) {
                written = write(handedOff, written, random, outcome);
            }
            check(queue, batchOfAck, posted, recordsOfBatch, outcome, operator.emissionOf, where);
            assertThat(posted)
                    .as("%s: every batch resolved after flush and writes", where)
                    .hasSize(batches);
            chain.close();
            assertThat(queue.isEmpty()).as("%s: nothing left to fail", where).isTrue();
        } else {
            // Teardown without flush: open chunks fail, the operator's holds fail.
            outbox.failAll();
            chain.close();
            Set<Integer> pendingChunks = new HashSet<>();
            for (int i = written; i < handedOff.size(); i++) {
                pendingChunks.add(i);
            }
            for (int i : pendingChunks) {
                markRows(handedOff.get(i), false, outcome);
                handedOff.get(i).failAcks();
            }
            for (Integer record : batchOfRecord.keySet()) {
                outcome.putIfAbsent(record, false); // buffered, or in a chunk failed above
            }
            check(queue, batchOfAck, posted, recordsOfBatch, outcome, operator.emissionOf, where);
            assertThat(posted)
                    .as("%s: every batch resolved after teardown", where)
                    .hasSize(batches);
        }
    }

    /** Writes the next handed-off chunk with a random outcome (mostly success). */
    private static int write(List<Chunk> handedOff, int next, SplittableRandom random, Map<Integer, Boolean> outcome) {
        Chunk chunk = handedOff.get(next);
        boolean success = random.nextInt(6) != 0;
        markRows(chunk, success, outcome);
        if (success) {
            chunk.succeedAcks();
        } else {
            chunk.failAcks();
        }
        return next + 1;
    }

    private static void markRows(Chunk chunk, boolean success, Map<Integer, Boolean> outcome) {
        for (String row : RowBinaryStrings.decode(chunk)) {
            for (String id : row.split(",")) {
                outcome.merge(Integer.parseInt(id), success, Boolean::logicalAnd);
            }
        }
    }

    private static void check(
            AckQueue queue,
            Map<AckRef, Integer> batchOfAck,
            Map<Integer, Boolean> posted,
            Map<Integer, List<Integer>> recordsOfBatch,
            Map<Integer, Boolean> outcome,
            Map<Integer, List<Integer>> emissionOf,
            String where) {
        queue.drain(ack -> {
            Integer batch = batchOfAck.get(ack);
            assertThat(batch).as("%s: a group ack was posted", where).isNotNull();
            assertThat(posted.put(batch, ack.succeeded()))
                    .as("%s: batch %d posted twice", where, batch)
                    .isNull();
        });
        for (Map.Entry<Integer, List<Integer>> e : recordsOfBatch.entrySet()) {
            boolean resolved = true;
            boolean success = true;
            for (int record : e.getValue()) {
                // A batch shares the fate of every emission one of its records is in.
                List<Integer> fellows = emissionOf.getOrDefault(record, List.of(record));
                for (int fellow : fellows) {
                    Boolean result = outcome.get(fellow);
                    resolved &= result != null;
                    success &= result == null || result;
                }
            }
            Boolean actual = posted.get(e.getKey());
            if (resolved) {
                assertThat(actual)
                        .as("%s: batch %d resolved in the model", where, e.getKey())
                        .isEqualTo(success);
            } else {
                assertThat(actual)
                        .as("%s: batch %d has a record not yet written", where, e.getKey())
                        .isNull();
            }
        }
    }
}
