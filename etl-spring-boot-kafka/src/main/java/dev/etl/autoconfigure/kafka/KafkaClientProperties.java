package dev.etl.autoconfigure.kafka;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.util.StringUtils;

/**
 * The one place Kafka client properties are layered, for the source's consumer and the dead-letter
 * producer alike: Boot's {@code spring.kafka.consumer.*}/{@code producer.*} (with the common
 * {@code spring.kafka.*} settings, SASL and SSL included), then bootstrap servers, security protocol
 * and SSL bundle from the {@link KafkaConnectionDetails} bean (Boot's properties-backed one, or a
 * service connection's), then the client's {@code etl.*} properties map.
 */
final class KafkaClientProperties {

    private KafkaClientProperties() {}

    /**
     * @param boot      Boot's client properties ({@code KafkaProperties.buildConsumerProperties()} or
     *                  {@code buildProducerProperties()})
     * @param details   the client's connection details, or null when there is no
     *                  {@link KafkaConnectionDetails} bean
     * @param overrides the {@code etl.*} properties map, applied last
     * @return a new, mutable map
     */
    static Map<String, Object> layered(
            Map<String, Object> boot, KafkaConnectionDetails.Configuration details, Map<String, String> overrides) {
        Map<String, Object> client = new LinkedHashMap<>(boot);
        if (details != null) {
            client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", details.getBootstrapServers()));
            if (StringUtils.hasLength(details.getSecurityProtocol())) {
                client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, details.getSecurityProtocol());
            }
            SslBundle sslBundle = details.getSslBundle();
            if (sslBundle != null) {
                client.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, SslBundleSslEngineFactory.class);
                client.put(SslBundle.class.getName(), sslBundle);
            }
        } else if (client.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG) instanceof List<?> servers) {
            client.put(
                    CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                    String.join(",", servers.stream().map(String::valueOf).toList()));
        }
        client.putAll(overrides);
        return client;
    }
}
