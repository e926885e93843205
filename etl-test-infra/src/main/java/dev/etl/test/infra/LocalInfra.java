package dev.etl.test.infra;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the real local servers that {@code scripts/infra.sh} manages, starting
 * the ones that are not answering.
 *
 * <p>Before the first test of the class, the servers named by {@link #value()} are probed and, when
 * one does not answer, started once per JVM; see {@link LocalInfraExtension}. Tests, lifecycle
 * methods and constructors may then declare parameters of these types:
 * <ul>
 * <li>{@link InfraEndpoints}: where every server listens;</li>
 * <li>{@link ClickHouseTestDatabase}: a fresh database on every ClickHouse instance, dropped after
 * the class;</li>
 * <li>{@link KafkaTestTopics}: uniquely named topics, deleted after the class;</li>
 * <li>{@link S3TestBuckets}: uniquely named buckets on the S3-compatible server, emptied and deleted
 * after the class.</li>
 * </ul>
 * <pre class="code">
 * &#064;LocalInfra
 * class OrdersSinkIT {
 *
 *     &#064;Test
 *     void writesToBothShards(InfraEndpoints infra, ClickHouseTestDatabase db, KafkaTestTopics topics) {
 *         String topic = topics.create("orders", 4);
 *         db.execute("CREATE TABLE " + db.table("orders") + " ON CLUSTER " + infra.clickhouseCluster() + " ...");
 *         ...
 *     }
 *
 * }
 * </pre>
 *
 * <p>Use it for {@code *IT} classes (Failsafe). Tests that only need a Kafka broker inside the test
 * JVM can use spring-kafka-test's {@code EmbeddedKafkaKraftBroker} instead, which needs no script.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag("local-infra")
@ExtendWith(LocalInfraExtension.class)
public @interface LocalInfra {

    /**
     * Servers the tests need; ClickHouse implies ZooKeeper. Servers not listed are still started on
     * demand when a parameter needs them ({@link ClickHouseTestDatabase}, {@link KafkaTestTopics},
     * {@link S3TestBuckets}).
     * @return the servers to probe and, if needed, start before the first test; by default all but
     * {@link InfraServer#S3} (name it, e.g. {@code @LocalInfra(InfraServer.S3)}, or declare an
     * {@link S3TestBuckets} parameter)
     */
    InfraServer[] value() default {
        InfraServer.ZOOKEEPER, InfraServer.CLICKHOUSE, InfraServer.KAFKA, InfraServer.REGISTRY
    };
}
