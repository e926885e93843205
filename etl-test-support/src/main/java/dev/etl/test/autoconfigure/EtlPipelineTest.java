package dev.etl.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.autoconfigure.OverrideAutoConfiguration;
import org.springframework.boot.test.context.filter.annotation.TypeExcludeFilters;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.core.annotation.AliasFor;
import org.springframework.core.env.Environment;
import org.springframework.test.context.BootstrapWith;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * Test slice for a pipeline: starts only the ETL auto-configuration and the application's chain
 * factories, with the {@link dev.etl.test.memory.MemorySource memory source} in place of Kafka and a
 * {@link dev.etl.test.capture.CaptureSink capture sink} in place of ClickHouse, and a stub schema
 * registry in place of the real one.
 *
 * <p><b>What is loaded.</b> Full auto-configuration is disabled; {@link AutoConfigureEtlPipeline}
 * imports the pipeline auto-configuration and the test doubles. Component scanning keeps only
 * {@code ChainFactory} components and the {@code @Configuration} classes that declare a
 * {@code ChainFactory} {@code @Bean} (such a class is loaded whole, so keep chain factories in a
 * configuration class of their own); use {@link #includeFilters()} for anything else the chains need.
 * Beans declared on the {@code @SpringBootApplication} class itself are always loaded.
 *
 * <p><b>Beans to inject.</b> {@code MemorySourceHandle} (assign partitions to lanes, push records,
 * read committed offsets), {@code CaptureScript} (written batches, scripted failures and latency),
 * {@code PipelineRuntime}, and a {@code SimpleMeterRegistry} holding the engine's meters. The capture
 * sink is named {@code etl.sink.clickhouse.name} ({@code clickhouse} by default) and has as many
 * shards as {@code etl.sink.clickhouse.shards} lists (1 if none). With named tables
 * ({@code etl.sink.clickhouse.tables.<name>}) there is a capture sink per table instead (and the one above
 * only when {@code etl.sink.clickhouse.table} is set), written with the {@code RowEncoder} bean qualified
 * {@code <name>} and injected with {@code @Qualifier("<name>")} ({@code CaptureScript}, {@code CaptureSink}).
 * A {@code Source} or {@code SinkDefinition} bean of the test's own replaces the corresponding double.
 *
 * <p><b>Schema registry.</b> Chains that decode Avro get a {@code SchemaRegistryClient} pointed at a
 * {@link dev.etl.test.avro.StubSchemaRegistry StubSchemaRegistry} on a local port, in place of the
 * registry {@code etl.avro.registry.url} names. Inject the stub to serve the writer schemas of the
 * test's records ({@code put(id, schema)} or {@code register(subject, schema)}) before pushing them;
 * it is one registry per cached context, so it keeps what earlier tests registered. A
 * {@code SchemaRegistryClient} or {@code SchemaRegistryConnectionDetails} bean of the test's own (e.g. a
 * {@code @ServiceConnection} to a real registry) replaces the stub. {@code etl.avro.reader-schema}
 * applies as in the application.
 *
 * <p><b>Settings.</b> Fast timings unless {@link #properties()} says otherwise: commits every 50 ms,
 * 20 ms polls, a 5 s drain timeout, 10 ms minimum pause. A failed pipeline neither closes the context
 * nor exits the JVM, so a test can assert on the {@code FAILED} state, and the pipeline does not take
 * over SIGTERM/SIGINT: {@link #closeOnFailure()}, {@link #exitOnFailure()} and
 * {@link #handleSignals()} (mapped onto {@code etl.pipeline.*} ahead of every property source, as
 * Boot's slices map theirs). The pipeline starts with the context and drains when the context closes.
 *
 * <pre>{@code
 * @EtlPipelineTest(properties = "etl.pipeline.threads=1")
 * class OrdersChainTest {
 *     @Autowired MemorySourceHandle source;
 *     @Autowired CaptureScript sink;
 *     @Autowired StubSchemaRegistry registry;
 *
 *     @Test
 *     void writesEveryOrder() throws Exception {
 *         int schemaId = registry.register("orders-value", Order.getClassSchema());
 *         source.assign(0, 0);
 *         long offset = source.push(0, null, AvroWireFormat.confluent(schemaId, Order.getClassSchema(), order));
 *         assertThat(source.awaitCommitted(0, offset + 1, Duration.ofSeconds(10))).isTrue();
 *         assertThat(sink.rows()).isEqualTo(1);
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@BootstrapWith(EtlPipelineTestContextBootstrapper.class)
@ExtendWith(SpringExtension.class)
@OverrideAutoConfiguration(enabled = false)
@TypeExcludeFilters(EtlPipelineTypeExcludeFilter.class)
@AutoConfigureEtlPipeline
@ImportAutoConfiguration
public @interface EtlPipelineTest {

    /**
     * Properties in form {@literal key=value} that should be added to the Spring {@link Environment}
     * before the test runs; they win over the slice's fast defaults.
     * @return the properties to add
     */
    String[] properties() default {};

    /**
     * Whether default filtering should be used with {@code @SpringBootApplication}. By default only
     * chain factories and the configuration classes declaring them are included.
     * @return whether default filters should be used
     * @see #includeFilters()
     * @see #excludeFilters()
     */
    boolean useDefaultFilters() default true;

    /**
     * Include filters to add otherwise filtered beans to the application context.
     * @return include filters to apply
     */
    Filter[] includeFilters() default {};

    /**
     * Exclude filters to remove beans that would otherwise be added to the application context.
     * @return exclude filters to apply
     */
    Filter[] excludeFilters() default {};

    /**
     * Whether a failed pipeline closes the application context.
     * @return whether a failure closes the context
     */
    @AliasFor(annotation = AutoConfigureEtlPipeline.class)
    boolean closeOnFailure() default false;

    /**
     * Whether a failed pipeline exits the JVM with status 1.
     * @return whether a failure exits the JVM
     */
    @AliasFor(annotation = AutoConfigureEtlPipeline.class)
    boolean exitOnFailure() default false;

    /**
     * Whether the pipeline handles SIGTERM and SIGINT itself.
     * @return whether the pipeline takes over the signals
     */
    @AliasFor(annotation = AutoConfigureEtlPipeline.class)
    boolean handleSignals() default false;

    /**
     * Auto-configuration exclusions that should be applied for this test.
     * @return auto-configuration exclusions to apply
     */
    @AliasFor(annotation = ImportAutoConfiguration.class, attribute = "exclude")
    Class<?>[] excludeAutoConfiguration() default {};
}
