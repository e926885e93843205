package dev.etl.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

class KafkaSourceConfigTest {

    private static KafkaSourceConfig.Builder base() {
        return KafkaSourceConfig.builder()
                .property("bootstrap.servers", "127.0.0.1:9092")
                .property("group.id", "orders-etl")
                .topics("orders");
    }

    private static void assertRefused(KafkaSourceConfig.Builder builder, String key, String reasonFragment) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(KafkaConfigException.class, e -> {
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.getMessage()).contains("'" + key + "'").contains(reasonFragment);
        });
    }

    @Test
    void groupIdIsRequired() {
        assertRefused(base().property("group.id", null), "group.id", "required");
        assertRefused(base().property("group.id", " "), "group.id", "required");
    }

    @Test
    void aTypoOfAConsumerSettingIsRefusedWithTheClosestName() {
        assertRefused(
                base().property("max.poll.recods", 10_000), "max.poll.recods", "did you mean 'max.poll.records'?");
        assertRefused(base().property("fetch.min.byte", 1), "fetch.min.byte", "silently keep the default");
    }

    @Test
    void anUnknownSettingFarFromEveryKnownNameIsPassedThroughForPlugIns() {
        assertThat(base().property("my.interceptor.endpoint", "http://x")
                        .build()
                        .consumerProperties())
                .containsEntry("my.interceptor.endpoint", "http://x");
    }

    @Test
    void bootstrapServersAreRequired() {
        assertRefused(base().property("bootstrap.servers", null), "bootstrap.servers", "required");
    }

    @Test
    void autoCommitIsRefusedAsBooleanOrString() {
        assertRefused(base().property("enable.auto.commit", true), "enable.auto.commit", "at-least-once");
        assertRefused(base().property("enable.auto.commit", "TRUE"), "enable.auto.commit", "at-least-once");
    }

    @Test
    void autoCommitIsForcedOffWhenUnsetOrFalse() {
        assertThat(base().build().consumerProperties()).containsEntry("enable.auto.commit", false);
        assertThat(base().property("enable.auto.commit", "false").build().consumerProperties())
                .containsEntry("enable.auto.commit", false);
    }

    @Test
    void deserializersOtherThanByteArraysAreRefused() {
        assertRefused(base().property("key.deserializer", StringDeserializer.class), "key.deserializer", "raw bytes");
        assertRefused(
                base().property("value.deserializer", "com.example.AvroDeserializer"),
                "value.deserializer",
                "com.example.AvroDeserializer");
    }

    @Test
    void byteArrayDeserializersAreAcceptedAndForced() {
        Map<String, Object> props = base().property("key.deserializer", ByteArrayDeserializer.class)
                .property("value.deserializer", ByteArrayDeserializer.class.getName())
                .build()
                .consumerProperties();
        assertThat(props)
                .containsEntry("key.deserializer", ByteArrayDeserializer.class.getName())
                .containsEntry("value.deserializer", ByteArrayDeserializer.class.getName());
        assertThat(base().build().consumerProperties())
                .containsEntry("key.deserializer", ByteArrayDeserializer.class.getName());
    }

    @Test
    void bothIsolationLevelsAreAllowedAndOthersRefused() {
        assertThat(base().property("isolation.level", "read_committed").build().consumerProperties())
                .containsEntry("isolation.level", "read_committed");
        assertThat(base().property("isolation.level", "READ_UNCOMMITTED")
                        .build()
                        .consumerProperties())
                .containsEntry("isolation.level", "read_uncommitted");
        assertRefused(base().property("isolation.level", "serializable"), "isolation.level", "read_committed");
    }

    @Test
    void classicProtocolDefaultsToCooperativeStickyAssignment() {
        KafkaSourceConfig config = base().build();
        assertThat(config.consumerProtocol()).isFalse();
        assertThat(config.consumerProperties())
                .containsEntry("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
    }

    @Test
    void anExplicitAssignorIsKeptUnderTheClassicProtocol() {
        assertThat(base().property("partition.assignment.strategy", RangeAssignor.class.getName())
                        .build()
                        .consumerProperties())
                .containsEntry("partition.assignment.strategy", RangeAssignor.class.getName());
    }

    @Test
    void remoteAssignorIsRefusedUnderTheClassicProtocol() {
        assertRefused(
                base().property("group.remote.assignor", "uniform"),
                "group.remote.assignor",
                "group.protocol=consumer");
    }

    @Test
    void consumerProtocolSetsNoClientSideAssignor() {
        KafkaSourceConfig config = base().property("group.protocol", "CONSUMER")
                .property("group.remote.assignor", "uniform")
                .build();
        assertThat(config.consumerProtocol()).isTrue();
        assertThat(config.consumerProperties())
                .doesNotContainKey("partition.assignment.strategy")
                .containsEntry("group.protocol", "consumer")
                .containsEntry("group.remote.assignor", "uniform");
    }

    @Test
    void consumerProtocolRefusesClassicOnlySettings() {
        for (String key :
                new String[] {"partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"}) {
            assertRefused(base().property("group.protocol", "consumer").property(key, "6000"), key, "KIP-848");
        }
    }

    @Test
    void unknownGroupProtocolIsRefused() {
        assertRefused(base().property("group.protocol", "streams"), "group.protocol", "classic or consumer");
    }

    @Test
    void aTopicListOrPatternIsRequired() {
        assertRefused(
                KafkaSourceConfig.builder()
                        .property("bootstrap.servers", "b:9092")
                        .property("group.id", "g"),
                "topics",
                "no topics");
        assertRefused(base().topics("orders", " "), "topics", "blank");
        KafkaSourceConfig byPattern =
                base().topicPattern(Pattern.compile("orders-.*")).build();
        assertThat(byPattern.topics()).isEmpty();
        assertThat(byPattern.subscription()).isEqualTo("/orders-.*/");
    }

    @Test
    void sourceDurationsMustBePositive() {
        assertRefused(base().commitTimeout(Duration.ZERO), "commit-timeout", "> 0");
        assertRefused(base().lagSampleInterval(Duration.ofSeconds(-1)), "lag-sample-interval", "> 0");
    }

    @Test
    void sslAndSaslSettingsPassThroughUntouched() {
        Map<String, Object> security = new HashMap<>();
        security.put("security.protocol", "SASL_SSL");
        security.put("sasl.mechanism", "SCRAM-SHA-512");
        security.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"etl\" password=\"hunter2\";");
        security.put("ssl.truststore.location", "/etc/kafka/truststore.jks");
        security.put("ssl.truststore.password", "changeit");
        KafkaSourceConfig config = base().properties(security).build();
        assertThat(config.consumerProperties()).containsAllEntriesOf(security);
    }

    @Test
    void secretsAreRedactedFromToStringAndRedactedView() {
        KafkaSourceConfig config = base().property(
                        "sasl.jaas.config", "ScramLoginModule required username=\"etl\" password=\"hunter2\";")
                .property("ssl.keystore.password", "ks-secret-1")
                .property("ssl.key.password", "key-secret-2")
                .property("ssl.truststore.password", "ts-secret-3")
                .property("ssl.keystore.key", "PEM-secret-4")
                .property("sasl.oauthbearer.client.credentials.client.secret", "oauth-secret-5")
                .property("security.protocol", "SASL_SSL")
                .build();
        String text = config.toString();
        assertThat(text)
                .doesNotContain(
                        "hunter2", "ks-secret-1", "key-secret-2", "ts-secret-3", "PEM-secret-4", "oauth-secret-5");
        assertThat(text).contains("security.protocol=SASL_SSL", "sasl.jaas.config=[redacted]");
        assertThat(config.redacted())
                .containsEntry("ssl.key.password", "[redacted]")
                .containsEntry("group.id", "orders-etl");
        assertThat(KafkaSourceConfig.isSecret("bootstrap.servers")).isFalse();
        assertThat(KafkaSourceConfig.isSecret("my.plugin.api.key")).isTrue();
    }

    @Test
    void clientIdGetsALaneSuffixSoConsumersDoNotCollide() {
        KafkaSourceConfig config = base().property("client.id", "orders").build();
        assertThat(config.consumerProperties(0)).containsEntry("client.id", "orders-lane-0");
        assertThat(config.consumerProperties(3)).containsEntry("client.id", "orders-lane-3");
        assertThat(base().build().consumerProperties(1)).doesNotContainKey(ConsumerConfig.CLIENT_ID_CONFIG);
    }

    @Test
    void groupInstanceIdGetsALaneSuffixSoLanesDoNotFenceEachOther() {
        KafkaSourceConfig config = base().property("group.instance.id", "orders-etl-0")
                .property("client.id", "c")
                .build();
        assertThat(config.consumerProperties(0))
                .containsEntry("group.instance.id", "orders-etl-0-lane-0")
                .containsEntry("client.id", "c-lane-0");
        assertThat(config.consumerProperties(1))
                .containsEntry("group.instance.id", "orders-etl-0-lane-1")
                .containsEntry("client.id", "c-lane-1");
        assertThat(config.groupInstanceId(1)).isEqualTo("orders-etl-0-lane-1");
        assertThat(config.consumerProperties()).containsEntry("group.instance.id", "orders-etl-0");
        assertThat(base().build().consumerProperties(1)).doesNotContainKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        assertThat(base().build().groupInstanceId(0)).isNull();
        assertThat(base().property("group.instance.id", " ").build().consumerProperties(0))
                .doesNotContainKey("group.instance.id");
    }

    @Test
    void throughputDefaultsApplyUnlessAKeyIsGiven() {
        assertThat(base().build().consumerProperties())
                .containsEntry("max.poll.records", 5000)
                .containsEntry("fetch.min.bytes", 65536)
                .containsEntry("fetch.max.wait.ms", 100)
                .containsEntry("max.partition.fetch.bytes", 2097152);
        assertThat(base().property("max.poll.records", "300")
                        .property("fetch.min.bytes", 1)
                        .property("fetch.max.wait.ms", "500")
                        .build()
                        .consumerProperties())
                .containsEntry("max.poll.records", "300")
                .containsEntry("fetch.min.bytes", 1)
                .containsEntry("fetch.max.wait.ms", "500")
                .containsEntry("max.partition.fetch.bytes", 2097152);
    }

    @Test
    void propertiesAreUnmodifiable() {
        Map<String, Object> props = base().build().consumerProperties();
        assertThatThrownBy(() -> props.put("enable.auto.commit", true))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
