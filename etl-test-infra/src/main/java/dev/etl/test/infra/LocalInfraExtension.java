package dev.etl.test.infra;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit Jupiter extension behind {@link LocalInfra}; usable on its own with
 * {@code @ExtendWith(LocalInfraExtension.class)}, which requires the servers {@link LocalInfra}
 * requires by default (all but S3).
 *
 * <p>Endpoints come from {@code endpoints.properties} in the infrastructure directory (system
 * property {@code etl.infra.dir}, else {@code ETL_INFRA_DIR}, else {@code .infra} in the repository
 * root: the nearest directory above the working directory holding {@code scripts/infra.sh}). Each
 * server is probed: ClickHouse {@code SELECT 1} on every instance, ZooKeeper {@code srvr}, Kafka TCP
 * connect and {@code describeCluster}, registry {@code GET /subjects}, S3 a signed
 * {@code ListBuckets}. A server that does not answer is started with
 * {@code scripts/infra.sh start <server>}, at most once per JVM and under a file lock
 * shared with other JVMs, within {@code etl.infra.start-timeout-seconds} (default 300). When that
 * fails, every test of the class fails with an {@link InfraUnavailableException} naming the server
 * and its logs. Servers that were already running are never stopped, and servers the extension
 * started are left running for the next build.
 *
 * <p>Parameters of type {@link ClickHouseTestDatabase}, {@link KafkaTestTopics} and
 * {@link S3TestBuckets} are created once per test class (the same instance for every test and
 * lifecycle method of the class) and cleaned up after the class, when JUnit closes the class's
 * extension store.
 */
public final class LocalInfraExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LocalInfraExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        ensureRunning(context, requiredServers(context));
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == InfraEndpoints.class
                || type == ClickHouseTestDatabase.class
                || type == KafkaTestTopics.class
                || type == S3TestBuckets.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        ExtensionContext classContext = classContext(extensionContext);
        ExtensionContext.Store store = classContext.getStore(NAMESPACE);
        String className = classContext.getRequiredTestClass().getSimpleName();
        if (type == InfraEndpoints.class) {
            return ensureRunning(extensionContext, requiredServers(extensionContext));
        }
        if (type == ClickHouseTestDatabase.class) {
            InfraEndpoints endpoints =
                    ensureRunning(extensionContext, EnumSet.of(InfraServer.ZOOKEEPER, InfraServer.CLICKHOUSE));
            return store.computeIfAbsent(
                    ClickHouseTestDatabase.class,
                    (key) -> ClickHouseTestDatabase.create(endpoints, className),
                    ClickHouseTestDatabase.class);
        }
        if (type == KafkaTestTopics.class) {
            InfraEndpoints endpoints = ensureRunning(extensionContext, EnumSet.of(InfraServer.KAFKA));
            return store.computeIfAbsent(
                    KafkaTestTopics.class, (key) -> KafkaTestTopics.open(endpoints), KafkaTestTopics.class);
        }
        if (type == S3TestBuckets.class) {
            InfraEndpoints endpoints = ensureRunning(extensionContext, EnumSet.of(InfraServer.S3));
            return store.computeIfAbsent(
                    S3TestBuckets.class, (key) -> S3TestBuckets.open(endpoints), S3TestBuckets.class);
        }
        throw new ParameterResolutionException("LocalInfraExtension cannot resolve " + type.getName());
    }

    private static InfraEndpoints ensureRunning(ExtensionContext context, Set<InfraServer> servers) {
        // The root store closes the shared instance at the end of the run, which logs what the
        // tests started; the instance itself is per JVM, so the start-once guard spans engines.
        LocalInfrastructure infrastructure = context.getRoot()
                .getStore(NAMESPACE)
                .computeIfAbsent(
                        LocalInfrastructure.class, (key) -> LocalInfrastructure.get(), LocalInfrastructure.class);
        return infrastructure.ensureRunning(servers);
    }

    private static Set<InfraServer> requiredServers(ExtensionContext context) {
        Optional<LocalInfra> annotation = context.getTestClass().flatMap((testClass) -> findAnnotation(testClass));
        Set<InfraServer> servers =
                annotation.map((infra) -> toSet(infra.value())).orElse(EnumSet.copyOf(InfraServer.DEFAULTS));
        if (servers.contains(InfraServer.CLICKHOUSE)) {
            servers.add(InfraServer.ZOOKEEPER);
        }
        return servers;
    }

    /** Looks on the class, its superclasses and, for {@code @Nested} classes, the enclosing classes. */
    private static Optional<LocalInfra> findAnnotation(Class<?> testClass) {
        for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
            Optional<LocalInfra> found = AnnotationSupport.findAnnotation(type, LocalInfra.class);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Set<InfraServer> toSet(InfraServer[] servers) {
        Set<InfraServer> set = EnumSet.noneOf(InfraServer.class);
        for (InfraServer server : servers) {
            set.add(server);
        }
        return set;
    }

    /** The nearest context that belongs to a test class rather than to a method or invocation. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }
}
