package dev.etl.test.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Creates uniquely named Kafka topics and deletes them when closed, so each test class works on
 * topics no other run has touched.
 *
 * <p>Under {@link LocalInfra}, declare a parameter of this type: one instance per test class,
 * closed (topics deleted, admin client closed) after the class. Created directly with
 * {@link #open}, the caller closes it.
 *
 * <p>For a broker inside the test JVM instead of the local server, spring-kafka-test's
 * {@code EmbeddedKafkaKraftBroker} (an optional dependency of this module) works without any
 * script.
 *
 * <p>Thread-safe.
 */
public final class KafkaTestTopics implements AutoCloseable {

    private static final long TIMEOUT_SECONDS = 30;

    private final String bootstrap;
    private final Admin admin;
    private final List<String> created = new ArrayList<>();

    private KafkaTestTopics(String bootstrap, Admin admin) {
        this.bootstrap = bootstrap;
        this.admin = admin;
    }

    /**
     * Opens an admin client on the local broker.
     * @param endpoints where Kafka listens
     * @return the topic factory; close it to delete its topics
     */
    public static KafkaTestTopics open(InfraEndpoints endpoints) {
        Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                endpoints.kafkaBootstrap(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                "etl-test-topics"));
        return new KafkaTestTopics(endpoints.kafkaBootstrap(), admin);
    }

    /**
     * Creates a topic named {@code <prefix>-<random>} with replication factor 1 and waits until the
     * broker confirms it.
     * @param prefix readable part of the name; characters Kafka does not allow become {@code _}
     * @param partitions number of partitions, at least 1
     * @return the topic name
     * @throws IllegalStateException if the broker does not create the topic within 30 s
     */
    public String create(String prefix, int partitions) {
        String name = prefix.replaceAll("[^a-zA-Z0-9._-]", "_") + "-"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException(
                    "Kafka at " + bootstrap + " did not create topic " + name + " with " + partitions + " partitions: "
                            + ex,
                    ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, ex);
        }
        synchronized (created) {
            created.add(name);
        }
        return name;
    }

    /**
     * Returns the bootstrap address for producers and consumers.
     * @return the value for {@code bootstrap.servers}
     */
    public String bootstrapServers() {
        return bootstrap;
    }

    /**
     * Returns the admin client this instance uses; it stays owned by this instance (do not close).
     * @return the admin client
     */
    public Admin admin() {
        return admin;
    }

    /**
     * Deletes the topics created here and closes the admin client.
     * @throws IllegalStateException if the broker does not delete the topics within 30 s
     */
    @Override
    public void close() {
        List<String> topics;
        synchronized (created) {
            topics = List.copyOf(created);
            created.clear();
        }
        try {
            if (!topics.isEmpty()) {
                admin.deleteTopics(Set.copyOf(topics)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException(
                    "Kafka at " + bootstrap + " did not delete topics " + topics + ": " + ex, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting topics " + topics, ex);
        } finally {
            admin.close();
        }
    }
}
