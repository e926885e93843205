package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardWeightsTest {

    @Test
    void slotsBelongToShardsInClusterOrderByWeight() {
        ShardWeights w = ShardWeights.of(3, 4);
        assertThat(w.total()).isEqualTo(7);
        for (long slot = 0; slot < 7; slot++) {
            assertThat(w.shardOfSlot(slot)).as("slot %d", slot).isEqualTo(slot < 3 ? 0 : 1);
        }
    }

    @Test
    void aShardOfWeightZeroGetsNoSlot() {
        ShardWeights w = ShardWeights.of(2, 0, 1);
        assertThat(w.shardOfSlot(0)).isZero();
        assertThat(w.shardOfSlot(1)).isZero();
        assertThat(w.shardOfSlot(2)).isEqualTo(2);
    }

    @Test
    void theRemainderIsUnsigned() {
        // 2^64 - 1 = 18446744073709551615 ≡ 1 (mod 7); a signed remainder would give -1
        ShardWeights w = ShardWeights.of(3, 4);
        assertThat(w.slotOf(-1L)).isEqualTo(1);
        assertThat(w.shardOf(-1L)).isZero();
        assertThat(ShardWeights.uniform(2).shardOf(-1L)).isEqualTo(1);
    }

    /**
     * Distributed inserts on the 18.16 server, through a cluster with shard weights 3 and 4 (evidence
     * recorded when this was built): a raw Int32 key -1 went to shard_num 2, a raw UInt64 key
     * 18446744073709551615 to shard_num 1; Distributed casts a signed key to the unsigned type of its
     * own width before the remainder (4294967295 % 7 = 3, slot 3: the second shard).
     */
    @Test
    void rawSignedKeysTakeTheRemainderInTheirOwnWidth() {
        ShardWeights w = ShardWeights.of(3, 4);
        assertThat(new DistributedPlacement(ShardingKey.raw("i", KeyType.INT32), w).shardOf(-1))
                .isEqualTo(1);
        assertThat(new DistributedPlacement(ShardingKey.raw("id", KeyType.UINT64), w).shardOf(-1))
                .isZero();
    }

    @Test
    void refusesNegativeOrAllZeroWeights() {
        assertThatThrownBy(() -> ShardWeights.of(1, -1)).hasMessageContaining("shard 1");
        assertThatThrownBy(() -> ShardWeights.of(0, 0)).hasMessageContaining("must not all be zero");
        assertThatThrownBy(ShardWeights::of).hasMessageContaining("at least one shard");
    }

    @Test
    void weightsAreCopiedAndCompareByValue() {
        int[] raw = {1, 2};
        ShardWeights w = ShardWeights.of(raw);
        raw[0] = 5;
        assertThat(w.weights()).containsExactly(1, 2);
        assertThat(w).isEqualTo(ShardWeights.of(1, 2)).hasToString("[1, 2]");
    }
}
