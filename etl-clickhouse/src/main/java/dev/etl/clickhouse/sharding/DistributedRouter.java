package dev.etl.clickhouse.sharding;

import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import dev.etl.sink.Router;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Routes each value to the shard a ClickHouse Distributed table would put it on, so that rows the
 * sink writes straight into the shard-local tables sit exactly where the Distributed table's
 * sharding key says they belong. The key is taken from the value and run through the
 * {@link DistributedPlacement}: the sharding expression computed bit for bit as ClickHouse 18.16
 * does, unsigned remainder by the total weight, slot to shard through the weights in cluster order.
 *
 * <p>Reproduces these Distributed sharding expressions over one key column:
 * <table>
 * <caption>sharding keys</caption>
 * <tr><th>{@code Distributed(cluster, db, local, …)}</th><th>router</th></tr>
 * <tr><td>{@code cityHash64(order_id)} (integer column)</td>
 * <td>{@code byLong(new DistributedPlacement(ShardingKey.cityHash64("order_id", KeyType.UINT64), weights), Order::id)}</td></tr>
 * <tr><td>{@code cityHash64(customer)} (String column)</td>
 * <td>{@code byString(new DistributedPlacement(ShardingKey.cityHash64("customer", KeyType.STRING), weights), Order::customer)}</td></tr>
 * <tr><td>{@code murmurHash3_64(customer)}, {@code murmurHash3_64(order_id)}</td>
 * <td>{@code ShardingKey.murmurHash3_64(…)} (integers hashed in the column's width)</td></tr>
 * <tr><td>{@code intHash64(order_id)}</td><td>{@code ShardingKey.intHash64(…)}</td></tr>
 * <tr><td>{@code order_id} (raw integer)</td><td>{@code ShardingKey.raw(…)}</td></tr>
 * </table>
 * {@link DistributedPlacement#read} builds the placement from the table itself;
 * {@link DistributedPlacementCheck} proves it against the server at startup.
 *
 * <p>Called on lane threads, concurrently from several: stateless apart from immutable fields. The
 * integer and source-key paths allocate nothing; the String path encodes into a per-thread scratch
 * array (no allocation once it has grown to the longest key). The sink's shards must be the
 * cluster's, in {@code shard_num} order: {@link #shard} fails when their number differs.
 *
 * @param <T> the value type arriving at the sink
 */
public final class DistributedRouter<T> implements Router<T> {
    private enum Source {
        LONG,
        STRING,
        RECORD_KEY
    }

    private static final byte[] EMPTY = new byte[0];

    private final DistributedPlacement placement;
    private final Source source;
    private final ToLongFunction<? super T> longKey;
    private final Function<? super T, ? extends CharSequence> stringKey;

    private DistributedRouter(
            DistributedPlacement placement,
            Source source,
            ToLongFunction<? super T> longKey,
            Function<? super T, ? extends CharSequence> stringKey) {
        this.placement = Objects.requireNonNull(placement, "placement");
        this.source = source;
        this.longKey = longKey;
        this.stringKey = stringKey;
        boolean wantsString = source != Source.LONG;
        if (wantsString != (placement.key().type() == KeyType.STRING)) {
            throw new IllegalArgumentException("sharding key " + placement.key() + " needs a "
                    + (wantsString ? "long key (DistributedRouter.byLong)" : "text key (byString or bySourceKey)"));
        }
    }

    /**
     * Routes on an integer key column: {@code key} returns the value the encoder writes to it (for a
     * UInt64 column, the long read as unsigned; for narrower columns, the low bits are what counts).
     */
    public static <T> DistributedRouter<T> byLong(DistributedPlacement placement, ToLongFunction<? super T> key) {
        return new DistributedRouter<>(placement, Source.LONG, Objects.requireNonNull(key, "key"), null);
    }

    /**
     * Routes on a String key column: {@code key} returns the text the encoder writes to it, hashed as
     * UTF-8. A null key fails the record ({@link IllegalArgumentException}): a Distributed sharding
     * key cannot be Nullable.
     */
    public static <T> DistributedRouter<T> byString(
            DistributedPlacement placement, Function<? super T, ? extends CharSequence> key) {
        return new DistributedRouter<>(placement, Source.STRING, null, Objects.requireNonNull(key, "key"));
    }

    /**
     * Routes on the source record's key bytes ({@link RecordMeta#sourceKey()}), for a String key column
     * that stores the Kafka key as it is. A record without a key is placed as the empty string, so
     * the encoder must write {@code ""} for it.
     */
    public static <T> DistributedRouter<T> bySourceKey(DistributedPlacement placement) {
        return new DistributedRouter<>(placement, Source.RECORD_KEY, null, null);
    }

    /** The placement this router applies. */
    public DistributedPlacement placement() {
        return placement;
    }

    /**
     * {@code distributed(<sharding expression>, weights=[…], <key source>)}: part of every deterministic
     * block's dedup token, so a changed sharding key or weights never reuses the tokens of blocks cut the old
     * way (see {@link Router#topology()}).
     */
    @Override
    public String topology() {
        return "distributed(" + placement.key().expression() + ", weights="
                + java.util.Arrays.toString(placement.weights().weights()) + ", "
                + source.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    @Override
    public int shard(T value, RecordMeta meta, int shardCount) {
        if (shardCount != placement.shardCount()) {
            throw new IllegalStateException("router for " + placement.key().expression() + " knows "
                    + placement.shardCount() + " shards (weights " + placement.weights() + ") but the sink has "
                    + shardCount);
        }
        return switch (source) {
            case LONG -> placement.shardOf(longKey.applyAsLong(value));
            case STRING -> {
                CharSequence text = stringKey.apply(value);
                if (text == null) {
                    throw new IllegalArgumentException("sharding key column "
                            + placement.key().column() + " is null; a Distributed sharding key cannot be Nullable");
                }
                yield placement.shardOf(text);
            }
            case RECORD_KEY -> {
                Payload key = meta.sourceKey();
                yield key == null || !key.isPresent()
                        ? placement.shardOf(EMPTY, 0, 0)
                        : placement.shardOf(key.array(), key.offset(), key.length());
            }
        };
    }

    @Override
    public String toString() {
        return "DistributedRouter[" + placement + (source == Source.RECORD_KEY ? ", by source key" : "") + "]";
    }
}
