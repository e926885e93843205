/**
 * Testcontainers service connections for etl: {@code ContainerConnectionDetailsFactory}s, registered in
 * {@code META-INF/spring.factories}, so that {@code @ServiceConnection} on a ClickHouse container or a
 * schema-registry container defines the {@code ClickHouseConnectionDetails} or
 * {@code SchemaRegistryConnectionDetails} the etl auto-configuration consumes. Kafka needs nothing here:
 * Spring Boot's own Kafka factories define {@code KafkaConnectionDetails}, which the etl Kafka source reads.
 */
@NullMarked
package dev.etl.testcontainers;

import org.jspecify.annotations.NullMarked;
