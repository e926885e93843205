package dev.etl.clickhouse.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DistributedRouterTest {
    record Order(long id, String customer) {}

    private static final DistributedPlacement BY_ID =
            new DistributedPlacement(ShardingKey.cityHash64("id", KeyType.UINT64), ShardWeights.uniform(2));
    private static final DistributedPlacement BY_CUSTOMER =
            new DistributedPlacement(ShardingKey.cityHash64("customer", KeyType.STRING), ShardWeights.of(1, 2));

    @Test
    void routesALongKeyThroughTheHashAndTheWeights() {
        DistributedRouter<Order> router = DistributedRouter.byLong(BY_ID, Order::id);
        for (long id = 0; id < 1000; id++) {
            long hash = IntHash64.ofBits(id); // cityHash64 of a UInt64
            assertThat(router.shard(new Order(id, "c"), null, 2)).isEqualTo((int) Long.remainderUnsigned(hash, 2));
        }
    }

    @Test
    void routesAStringKeyAsItsUtf8Bytes() {
        DistributedRouter<Order> router = DistributedRouter.byString(BY_CUSTOMER, Order::customer);
        for (String c : new String[] {"", "alice", "Zoë", "日本", "😀"}) {
            long hash = CityHash64.hash(c.getBytes(StandardCharsets.UTF_8));
            int slot = (int) Long.remainderUnsigned(hash, 3);
            assertThat(router.shard(new Order(1, c), null, 2)).as(c).isEqualTo(slot == 0 ? 0 : 1);
        }
    }

    @Test
    void routesOnTheSourceKeyBytes() {
        DistributedRouter<Object> router = DistributedRouter.bySourceKey(BY_CUSTOMER);
        byte[] key = "xalicey".getBytes(StandardCharsets.UTF_8);
        Meta meta = new Meta();
        meta.key.wrap(key, 1, 5);
        assertThat(router.shard("v", meta, 2)).isEqualTo(BY_CUSTOMER.shardOf("alice"));
        meta.key.clear();
        assertThat(router.shard("v", meta, 2)).isEqualTo(BY_CUSTOMER.shardOf(""));
    }

    @Test
    void refusesASinkWithAnotherNumberOfShards() {
        DistributedRouter<Order> router = DistributedRouter.byLong(BY_ID, Order::id);
        assertThatThrownBy(() -> router.shard(new Order(1, "c"), null, 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("knows 2 shards")
                .hasMessageContaining("the sink has 3");
    }

    @Test
    void refusesAKeyOfTheWrongKind() {
        assertThatThrownBy(() -> DistributedRouter.<Order>byLong(BY_CUSTOMER, Order::id))
                .hasMessageContaining("needs a text key");
        assertThatThrownBy(() -> DistributedRouter.<Order>byString(BY_ID, Order::customer))
                .hasMessageContaining("needs a long key");
        DistributedRouter<Order> router = DistributedRouter.byString(BY_CUSTOMER, Order::customer);
        assertThatThrownBy(() -> router.shard(new Order(1, null), null, 2)).hasMessageContaining("cannot be Nullable");
    }

    @Test
    void describesTheExpressionItReproduces() {
        assertThat(DistributedRouter.byLong(BY_ID, Order::id))
                .hasToString("DistributedRouter[cityHash64(id) [id UInt64] % 2 over weights [1, 1]]");
    }

    @Test
    void routingAllocatesNothingInTheSteadyState() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        DistributedRouter<Order> byId = DistributedRouter.byLong(BY_ID, Order::id);
        DistributedRouter<Order> byCustomer = DistributedRouter.byString(BY_CUSTOMER, Order::customer);
        Order[] orders = new Order[64];
        for (int i = 0; i < orders.length; i++) {
            orders[i] = new Order(i * 7919L, "customer-" + i + "-Zoë-日本");
        }
        int sink = 0;
        for (int round = 0; round < 20_000; round++) { // warm up: JIT, scratch array
            Order o = orders[round & 63];
            sink += byId.shard(o, null, 2) + byCustomer.shard(o, null, 2);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int round = 0; round < 200_000; round++) {
            Order o = orders[round & 63];
            sink += byId.shard(o, null, 2) + byCustomer.shard(o, null, 2);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(sink).isPositive();
        assertThat(allocated).as("bytes allocated routing 400,000 rows").isLessThan(4_096);
    }

    private static final class Meta implements RecordMeta {
        final Payload key = new Payload();

        @Override
        public int partition() {
            return 0;
        }

        @Override
        public long offset() {
            return 0;
        }

        @Override
        public long timestampMs() {
            return -1;
        }

        @Override
        public int keyHash() {
            return 0;
        }

        @Override
        public Payload sourceKey() {
            return key;
        }

        @Override
        public Payload sourceValue() {
            return null;
        }
    }
}
