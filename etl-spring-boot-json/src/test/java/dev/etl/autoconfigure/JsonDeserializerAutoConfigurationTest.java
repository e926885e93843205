package dev.etl.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.etl.autoconfigure.json.JsonDeserializerAutoConfiguration;
import dev.etl.autoconfigure.json.JsonDeserializers;
import dev.etl.deser.Deserializer;
import dev.etl.json.JsonDeserializer;
import dev.etl.json.JsonFraming;
import dev.etl.ops.ChainFactory;
import dev.etl.ops.Chains;
import dev.etl.record.Payload;
import dev.etl.record.RecordMeta;
import dev.etl.sink.KeyHashRouter;
import dev.etl.sink.SinkDefinition;
import dev.etl.source.Source;
import dev.etl.test.capture.CaptureSink;
import dev.etl.test.memory.MemorySource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code etl.json.*} and the {@link JsonDeserializers} bean: the framing, the unknown-property switch and
 * databind features reach the deserializers it builds, which read with the application's
 * {@link JsonMapper} bean; bad settings fail startup naming the property; without etl-json on the class
 * path there is no bean and an {@code etl.json.*} setting names the missing artifact.
 */
class JsonDeserializerAutoConfigurationTest {

    record Order(long orderId, String sku, int qty) {}

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    JacksonAutoConfiguration.class,
                    JsonDeserializerAutoConfiguration.class,
                    EtlAutoConfiguration.class))
            .withPropertyValues("etl.pipeline.exit-on-failure=false")
            .withUserConfiguration(Pipeline.class, TestPipelines.Chain.class, NotStarted.class);

    @Test
    void defaultsReadOneDocumentPerMessageWithBootsJsonMapper() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(JsonDeserializers.class);
            JsonDeserializers json = context.getBean(JsonDeserializers.class);
            assertThat(json.framing()).isEqualTo(JsonFraming.SINGLE);
            assertThat(json.mapper()).isSameAs(context.getBean(JsonMapper.class));
            JsonDeserializer<JsonNode> tree = json.tree().build();
            assertThat(emitted(tree, "{\"a\": 1}"))
                    .singleElement()
                    .satisfies((node) -> assertThat(node.path("a").asInt()).isEqualTo(1));
        });
    }

    @Test
    void framingUnknownPropertiesAndFeaturesComeFromProperties() {
        this.runner
                .withPropertyValues(
                        "etl.json.framing=ndjson",
                        "etl.json.fail-on-unknown-properties=true",
                        "etl.json.deserialization.fail-on-null-for-primitives=true")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    JsonDeserializer<Order> orders = context.getBean(JsonDeserializers.class)
                            .forType(Order.class)
                            .build();
                    assertThat(orders.framing()).isEqualTo(JsonFraming.NDJSON);
                    List<Order> out = new ArrayList<>();
                    String twoLines =
                            "{\"orderId\": 1, \"sku\": \"a\", \"qty\": 2}\n{\"orderId\": 2, \"sku\": \"b\", \"qty\": 1, \"x\": 0}";
                    assertThatThrownBy(() -> emitInto(orders, twoLines, out))
                            .as("the unknown property x")
                            .hasMessageContaining("x");
                    assertThat(out).containsExactly(new Order(1, "a", 2));
                    out.clear();
                    assertThatThrownBy(() -> emitInto(orders, "{\"orderId\": 3, \"sku\": \"c\", \"qty\": null}", out))
                            .as("null for a primitive")
                            .isNotNull();
                    assertThat(out).isEmpty();
                });
    }

    @Test
    void theGuidesChainFactoryTakesItsBuilderFromTheBean() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(JacksonAutoConfiguration.class, JsonDeserializerAutoConfiguration.class))
                .withUserConfiguration(GuideChain.class)
                .withPropertyValues("etl.json.framing=array")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ChainFactory.class);
                    assertThat(context.getBean(JsonDeserializers.class)
                                    .forType(Order.class)
                                    .build()
                                    .framing())
                            .isEqualTo(JsonFraming.ARRAY);
                });
    }

    @Test
    void theApplicationsOwnJsonMapperIsTheOneRead() {
        this.runner.withUserConfiguration(SnakeCaseMapper.class).run((context) -> {
            assertThat(context).hasNotFailed();
            JsonDeserializers json = context.getBean(JsonDeserializers.class);
            assertThat(json.mapper()).isSameAs(context.getBean(JsonMapper.class));
            assertThat(emitted(json.forType(Order.class).build(), "{\"order_id\": 7, \"sku\": \"s\", \"qty\": 1}"))
                    .containsExactly(new Order(7, "s", 1));
        });
    }

    @Test
    void aSettingTheFramingDecidesFailsStartupNamingIt() {
        this.runner
                .withPropertyValues("etl.json.deserialization.fail-on-trailing-tokens=false")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.json.deserialization.fail-on-trailing-tokens"));
    }

    @Test
    void theSameSwitchSetTwiceFailsStartup() {
        this.runner
                .withPropertyValues(
                        "etl.json.fail-on-unknown-properties=true",
                        "etl.json.deserialization.fail-on-unknown-properties=false")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.json.fail-on-unknown-properties"));
    }

    @Test
    void aMistypedJsonPropertyFailsStartupWithTheClosestName() {
        this.runner
                .withPropertyValues("etl.json.framming=ndjson")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.json.framming")
                        .hasMessageContaining("etl.json.framing"));
    }

    @Test
    void withoutEtlJsonThereIsNoBeanAndASettingNamesTheMissingArtifact() {
        this.runner
                .withClassLoader(new FilteredClassLoader(JsonDeserializer.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(JsonDeserializers.class);
                });
        this.runner
                .withClassLoader(new FilteredClassLoader(JsonDeserializer.class))
                .withPropertyValues("etl.json.framing=ndjson")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .isInstanceOf(InvalidEtlConfigurationException.class)
                        .hasMessageContaining("etl.json.framing")
                        .hasMessageContaining("etl-json is not on the class path"));
    }

    private static <T> List<T> emitted(Deserializer<T> deserializer, String json) throws Exception {
        List<T> out = new ArrayList<>();
        emitInto(deserializer, json, out);
        return out;
    }

    private static <T> void emitInto(Deserializer<T> deserializer, String json, List<? super T> out) throws Exception {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        Payload value = new Payload();
        value.wrap(bytes, 0, bytes.length);
        deserializer.deserialize(new Payload(), value, Meta.INSTANCE, out::add);
    }

    private enum Meta implements RecordMeta {
        INSTANCE;

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
            return 0;
        }

        @Override
        public int keyHash() {
            return 0;
        }

        @Override
        public Payload sourceKey() {
            return null;
        }

        @Override
        public Payload sourceValue() {
            return null;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Pipeline {

        @Bean
        Source source() {
            return MemorySource.create(1);
        }

        @Bean
        SinkDefinition capture() {
            return CaptureSink.create("capture", 1).definition();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotStarted {

        @Bean
        EtlPipelineLifecycle notStartedLifecycle(
                dev.etl.pipeline.PipelineRuntime runtime, org.springframework.context.ApplicationContext context) {
            return new EtlPipelineLifecycle(runtime, context, false, false, java.time.Duration.ofSeconds(30)) {
                @Override
                public boolean isAutoStartup() {
                    return false;
                }
            };
        }
    }

    /** The chain of docs/connectors/json.md's Spring Boot section. */
    @Configuration(proxyBeanMethods = false)
    static class GuideChain {

        // tag::json-chain[]
        @Bean
        ChainFactory orders(JsonDeserializers json) {
            JsonDeserializer.Builder<Order> orders = json.forType(Order.class); // etl.json.* applied
            return (ctx) -> Chains.from(ctx, orders.build()).sink(KeyHashRouter.byKey(Order::orderId));
        }
        // end::json-chain[]

    }

    @Configuration(proxyBeanMethods = false)
    static class SnakeCaseMapper {

        @Bean
        JsonMapper applicationMapper() {
            return JsonMapper.builder()
                    .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                    .build();
        }
    }
}
