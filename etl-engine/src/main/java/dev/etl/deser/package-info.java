/**
 * The deserializer SPI: {@link dev.etl.deser.Deserializer} turns a source payload into values at the head of a chain. Public API; connectors (Avro, JSON) implement it.
 */
package dev.etl.deser;
