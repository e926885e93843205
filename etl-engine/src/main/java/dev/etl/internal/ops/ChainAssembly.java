package dev.etl.internal.ops;

import dev.etl.deser.Deserializer;
import dev.etl.error.ErrorClass;
import dev.etl.error.ErrorPolicy;
import dev.etl.ops.Chain;
import dev.etl.record.Collector;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Build-time state shared by every builder of one chain (the root and all fan-out branches): stage
 * names, declaration order, stateful stages. Discarded once the chain is built.
 */
public final class ChainAssembly<S> {
    private final LaneContext context;
    private final Deserializer<S> deserializer;
    private final ErrorPolicy declaredDeserializePolicy;
    private final Set<String> names = new HashSet<>();
    private final Map<Integer, ProcessStage<?, ?>> statefulByOrder = new TreeMap<>();
    private int declared;
    private boolean built;

    public ChainAssembly(LaneContext context, Deserializer<S> deserializer, ErrorPolicy declaredDeserializePolicy) {
        this.context = context;
        this.deserializer = deserializer;
        this.declaredDeserializePolicy = declaredDeserializePolicy;
        names.add(ChainHead.DESERIALIZE_STAGE);
    }

    public LaneContext context() {
        return context;
    }

    /** Checks the chain is still being built and numbers the next operator (1-based, declaration order). */
    public int nextOperator() {
        if (built) {
            throw new IllegalStateException("the chain is already built; builders cannot be extended afterwards");
        }
        return ++declared;
    }

    /** Registers {@code explicit}, or a default {@code verb#n}, as the name of operator {@code n}. */
    public String stageName(String explicit, String verb, int n) {
        if (explicit == null) {
            String name = verb + "#" + n;
            names.add(name);
            return name;
        }
        if (explicit.isBlank() || explicit.indexOf('#') >= 0) {
            throw new IllegalArgumentException("stage name must be non-blank and without '#' (reserved for default "
                    + "names such as " + verb + "#" + n + "), got '" + explicit + "'");
        }
        if (!names.add(explicit)) {
            throw new IllegalArgumentException("duplicate stage name '" + explicit + "': names identify stages in "
                    + "metrics, logs and error-policy configuration, so they must be unique within a chain");
        }
        return explicit;
    }

    /** {@code sink-<sinkName>}, or {@code sink-<sinkName>#n} if the chain writes to that sink twice. */
    String sinkStageName(String sinkName, int n) {
        String name = "sink-" + sinkName;
        if (names.add(name)) {
            return name;
        }
        name = name + "#" + n;
        names.add(name);
        return name;
    }

    public void registerStateful(int order, ProcessStage<?, ?> stage) {
        statefulByOrder.put(order, stage);
    }

    @SuppressWarnings("unchecked")
    public Chain head(Collector<?> first) {
        built = true;
        ErrorPolicy policy = StageErrorPolicy.resolvePolicy(
                context, ChainHead.DESERIALIZE_STAGE, ErrorClass.DESERIALIZATION, declaredDeserializePolicy);
        ProcessStage<?, ?>[] stateful = statefulByOrder.values().toArray(new ProcessStage<?, ?>[0]);
        return new ChainHead<>(context, deserializer, (Collector<? super S>) first, policy, stateful);
    }
}
