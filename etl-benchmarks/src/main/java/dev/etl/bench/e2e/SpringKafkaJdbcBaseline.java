package dev.etl.bench.e2e;

import dev.etl.bench.BenchArgs;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * The hand-written baseline of the end-to-end benchmark: Avro orders from Kafka into the sharded
 * {@code orders} table with Spring Kafka and JDBC, no framework. Runs until SIGTERM; the JVM's
 * shutdown hook closes the Spring context, which stops the listener containers (each finishes and
 * acknowledges its current batch) and closes the JDBC connections.
 *
 * <pre>
 * java -Xmx1g -cp etl-benchmarks/target/benchmarks.jar dev.etl.bench.e2e.SpringKafkaJdbcBaseline \
 *      --bootstrap 127.0.0.1:19092 --registry http://127.0.0.1:18081/apis/ccompat/v7 --topic orders \
 *      --group orders-baseline --database bench --shards http://127.0.0.1:18123,http://127.0.0.1:18125
 * </pre>
 *
 * A plain Spring context rather than Spring Boot: the listener, container factory and consumer
 * settings are the ones Boot would build, and the process starts faster (which only favours the
 * baseline in the from-process-start timing).
 */
public final class SpringKafkaJdbcBaseline {
    private SpringKafkaJdbcBaseline() {}

    public static void main(String[] args) {
        BenchArgs.defaultLogging("dev/etl/bench/e2e/baseline-logback.xml");
        BaselineOptions options = BaselineOptions.parse(args);
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(BaselineOptions.class, () -> options);
        context.register(BaselineConfiguration.class);
        context.registerShutdownHook();
        context.refresh();
    }
}
