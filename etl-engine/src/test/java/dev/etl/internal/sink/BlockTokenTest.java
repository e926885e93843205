package dev.etl.internal.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.etl.internal.checkpoint.AckQueue;
import dev.etl.internal.checkpoint.AckRef;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a deterministic block's token names (issue 30 item 3). A token-aware server drops a block whose
 * token it has seen, so two blocks may share a token only when the second is a replay of the first: the
 * same partition's data, the same range, and the same rows chosen for the shard. The range alone was not
 * enough: after a change of shard count or router, the replay of a range cut the rows differently, the
 * shard's new block reused the old token and was dropped, and the keys that had moved to that shard were
 * lost; a recreated topic (same name, offsets from 0) did the same.
 */
class BlockTokenTest {
    private final AckQueue acks = new AckQueue();

    /** Seals one block of {@code partition} [0, 10) with a row for shard 0; returns shard 0's token. */
    private String shardZeroToken(int shards, String routerTopology, String partitionIdentity) {
        SinkDefinition definition = SinkDefinition.builder("orders", shards, shard -> batch -> {})
                .deterministicBlocks(true)
                .build();
        List<Chunk> handedOff = new ArrayList<>();
        ChunkSink sink = new ChunkSink() {
            @Override
            public int shardCount() {
                return shards;
            }

            @Override
            public Chunk newChunk(int shard) {
                return new Chunk(shard, 64);
            }

            @Override
            public boolean tryHandOff(Chunk chunk) {
                return handedOff.add(chunk);
            }
        };
        BlockChains blocks = new BlockChains(sink, definition);
        if (routerTopology != null) {
            blocks.routedBy(routerTopology);
        }
        AckRef ack = new AckRef(0, 1, 0, acks);
        Chunk chunk = blocks.chunk(0, 0);
        chunk.rows().writeLongLE(42);
        chunk.addRow(ack);
        blocks.rowAdded(0, 0, Long.BYTES);
        assertThat(blocks.seal(0, 0, 10, partitionIdentity)).isTrue();
        blocks.release(0, 10);
        assertThat(blocks.flush()).isTrue();
        return handedOff.get(0).blockToken();
    }

    @Test
    void aReplayOfTheSameRangeUnderTheSameTopologyGetsTheSameToken() {
        String router = KeyHashRouter.byRecordKey().topology();
        assertThat(shardZeroToken(2, router, "orders-0@abc")).isEqualTo(shardZeroToken(2, router, "orders-0@abc"));
    }

    @Test
    void anotherShardCountGivesTheSameRangeAnotherToken() {
        String router = KeyHashRouter.byRecordKey().topology();
        assertThat(shardZeroToken(2, router, "orders-0")).isNotEqualTo(shardZeroToken(3, router, "orders-0"));
    }

    @Test
    void anotherRouterOrOtherWeightsGiveTheSameRangeAnotherToken() {
        String byRecordKey = KeyHashRouter.byRecordKey().topology();
        String byValue = KeyHashRouter.<Long>byKey(v -> v).topology();
        String weighted = KeyHashRouter.byRecordKey().withWeights(1, 2).topology();
        assertThat(shardZeroToken(2, byRecordKey, "orders-0"))
                .isNotEqualTo(shardZeroToken(2, byValue, "orders-0"))
                .isNotEqualTo(shardZeroToken(2, weighted, "orders-0"));
        assertThat(weighted).isEqualTo("key-hash(record-key, weights=[1,2])");
    }

    @Test
    void anotherTopicOfTheSameNameGivesTheSameRangeAnotherToken() {
        String router = KeyHashRouter.byRecordKey().topology();
        assertThat(shardZeroToken(2, router, "orders-0@topic-id-1"))
                .isNotEqualTo(shardZeroToken(2, router, "orders-0@topic-id-2"));
    }

    @Test
    void aLambdaRouterDescribesItselfStablyNotByItsGeneratedClassName() {
        dev.etl.sink.Router<String> lambda = (value, meta, shards) -> 0;
        assertThat(lambda.topology()).isEqualTo("custom");
    }
}
