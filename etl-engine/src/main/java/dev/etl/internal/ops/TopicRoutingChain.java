package dev.etl.internal.ops;

import dev.etl.error.ErrorClass;
import dev.etl.error.FatalPipelineException;
import dev.etl.ops.Chain;
import dev.etl.ops.ChainContext;
import dev.etl.ops.ChainFactory;
import dev.etl.source.PartitionBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * One lane's chains for several {@link ChainFactory}s, dispatching each batch by its partition's
 * topic. The topic → chain decision is made once per partition and cached in a primitive map, so
 * routing costs one map lookup per batch. Confined to the lane thread like any chain.
 */
public final class TopicRoutingChain implements Chain {
    private final ChainContext context;
    private final Map<String, Chain> byTopic;
    private final Chain catchAll;
    private final List<Chain> all;
    private final Int2ObjectHashMap<Chain> byPartition = new Int2ObjectHashMap<>();
    private int opened;

    private TopicRoutingChain(ChainContext context, Map<String, Chain> byTopic, Chain catchAll, List<Chain> all) {
        this.context = context;
        this.byTopic = byTopic;
        this.catchAll = catchAll;
        this.all = all;
    }

    public static ChainFactory factory(List<ChainFactory> factories) {
        if (factories.isEmpty()) {
            throw new IllegalArgumentException("at least one ChainFactory is needed");
        }
        if (factories.size() == 1) {
            return factories.get(0);
        }
        Map<String, Integer> claimed = new HashMap<>();
        int catchAllIndex = -1;
        for (int i = 0; i < factories.size(); i++) {
            if (factories.get(i).topics().isEmpty()) {
                if (catchAllIndex >= 0) {
                    throw new IllegalArgumentException("ChainFactory #" + catchAllIndex + " and #" + i
                            + " both handle every topic; give all but one of them topics (ChainFactory.forTopics)");
                }
                catchAllIndex = i;
            }
            for (String topic : factories.get(i).topics()) {
                Integer previous = claimed.putIfAbsent(topic, i);
                if (previous != null) {
                    throw new IllegalArgumentException(
                            "topic '" + topic + "' is claimed by ChainFactory #" + previous + " and #" + i);
                }
            }
        }
        List<ChainFactory> copy = List.copyOf(factories);
        int catchAll = catchAllIndex;
        return context -> {
            Map<String, Chain> byTopic = new HashMap<>();
            List<Chain> all = new ArrayList<>();
            Chain fallback = null;
            for (int i = 0; i < copy.size(); i++) {
                Chain chain = copy.get(i).create(context);
                all.add(chain);
                for (String topic : copy.get(i).topics()) {
                    byTopic.put(topic, chain);
                }
                if (i == catchAll) {
                    fallback = chain;
                }
            }
            return new TopicRoutingChain(context, byTopic, fallback, all);
        };
    }

    @Override
    public void open() {
        for (Chain chain : all) {
            chain.open();
            opened++;
        }
    }

    @Override
    public void onBatch(PartitionBatch batch) {
        int partition = batch.partition();
        Chain chain = byPartition.get(partition);
        if (chain == null) {
            chain = resolve(partition);
            byPartition.put(partition, chain);
        }
        chain.onBatch(batch);
    }

    private Chain resolve(int partition) {
        String topic = context.topicOf(partition);
        Chain chain = byTopic.get(topic);
        if (chain == null) {
            chain = catchAll;
        }
        if (chain == null) {
            throw new FatalPipelineException(
                    ErrorClass.SOURCE,
                    "no ChainFactory handles topic '" + topic
                            + "' (partition " + context.describePartition(partition) + "); factories handle "
                            + byTopic.keySet(),
                    null);
        }
        return chain;
    }

    @Override
    public void flush() {
        for (int i = 0; i < opened; i++) {
            all.get(i).flush();
        }
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (int i = opened - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        opened = 0;
        if (first != null) {
            throw first;
        }
    }
}
