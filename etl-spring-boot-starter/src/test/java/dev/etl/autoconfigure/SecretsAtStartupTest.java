package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.etl.autoconfigure.avro.SchemaRegistryAutoConfiguration;
import dev.etl.autoconfigure.clickhouse.ClickHouseSinkAutoConfiguration;
import dev.etl.avro.SchemaRegistryClient;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What startup tells about credentials: a URL whose password does not parse fails startup with an error
 * (what Boot logs as "Application run failed") that does not hold the password, and basic auth over plain
 * {@code http://} is warned about once, without the password.
 */
class SecretsAtStartupTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ClickHouseSinkAutoConfiguration.class,
                    SchemaRegistryAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false", "etl.pipeline.handle-signals=false")
            .withUserConfiguration(
                    TestPipelines.Chain.class,
                    ConnectorAutoConfigurationTest.NotStarted.class,
                    ConnectorAutoConfigurationTest.MemorySourceOnly.class,
                    ConnectorAutoConfigurationTest.Encoder.class);

    @ParameterizedTest
    @ValueSource(strings = {"100%pure", "hun@ter2", "p%zzword", "pa/ss@wd"})
    void aRegistryUrlWhosePasswordDoesNotParseFailsStartupWithoutIt(String password) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SchemaRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "etl.avro.registry.url=https://etl:" + password + "@registry.internal:8443/apis/ccompat/v7",
                        "etl.avro.registry.check-on-startup=false")
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertNoMessageContains(context.getStartupFailure(), password.substring(1, 6));
                    assertThat(chain(context.getStartupFailure())).contains("schema registry URL https://");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"hun@ter2", "pa/ss@wd", "100%pure"})
    void aClickHouseReplicaUrlWhosePasswordDoesNotParseFailsStartupWithoutIt(String password) {
        this.runner
                .withPropertyValues(
                        "etl.sink.clickhouse.table=orders",
                        "etl.sink.clickhouse.shards[0].replicas=https://etl:" + password + "@ch-1.internal:8443")
                .run((context) -> {
                    assertThat(context).hasFailed();
                    assertNoMessageContains(context.getStartupFailure(), password.substring(1, 6));
                    assertThat(chain(context.getStartupFailure())).contains("ch-1.internal:8443");
                });
    }

    @Test
    void basicAuthOverPlainHttpIsWarnedOnceWithoutThePassword() {
        List<ILoggingEvent> warnings = capture(
                List.of(SchemaRegistryClient.class, ClickHouseSinkAutoConfiguration.class),
                (logs) -> this.runner
                        .withPropertyValues(
                                "etl.avro.registry.url=http://127.0.0.1:1",
                                "etl.avro.registry.username=etl",
                                "etl.avro.registry.password=hunter2",
                                "etl.avro.registry.check-on-startup=false",
                                "etl.sink.clickhouse.table=orders",
                                "etl.sink.clickhouse.shards[0].replicas=http://127.0.0.1:1,https://127.0.0.1:2",
                                "etl.sink.clickhouse.username=writer",
                                "etl.sink.clickhouse.password=hunter2")
                        .run((context) -> assertThat(context).hasNotFailed()));
        assertThat(warnings).hasSize(2).allSatisfy((event) -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("plain http://").doesNotContain("hunter2");
        });
        assertThat(warnings.get(0).getFormattedMessage() + warnings.get(1).getFormattedMessage())
                .contains("user 'etl'", "user 'writer'", "http://127.0.0.1:1")
                .doesNotContain("https://127.0.0.1:2");

        List<ILoggingEvent> none = capture(
                List.of(SchemaRegistryClient.class, ClickHouseSinkAutoConfiguration.class),
                (logs) -> this.runner
                        .withPropertyValues(
                                "etl.avro.registry.url=https://127.0.0.1:1",
                                "etl.avro.registry.username=etl",
                                "etl.avro.registry.password=hunter2",
                                "etl.avro.registry.check-on-startup=false",
                                "etl.sink.clickhouse.table=orders",
                                "etl.sink.clickhouse.shards[0].replicas=https://127.0.0.1:2",
                                "etl.sink.clickhouse.username=writer",
                                "etl.sink.clickhouse.password=hunter2")
                        .run((context) -> assertThat(context).hasNotFailed()));
        assertThat(none).isEmpty();
    }

    private static List<ILoggingEvent> capture(List<Class<?>> loggers, Consumer<ListAppender<ILoggingEvent>> run) {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        loggers.forEach((c) -> ((Logger) LoggerFactory.getLogger(c)).addAppender(logs));
        try {
            run.accept(logs);
        } finally {
            loggers.forEach((c) -> ((Logger) LoggerFactory.getLogger(c)).detachAppender(logs));
        }
        return logs.list.stream().filter((e) -> e.getLevel() == Level.WARN).toList();
    }

    private static void assertNoMessageContains(Throwable failure, String secret) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            assertThat(String.valueOf(t.getMessage()))
                    .as("message of %s", t.getClass().getName())
                    .doesNotContain(secret);
        }
    }

    private static String chain(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
