/**
 * The deserializer SPI: {@link dev.etl.deser.Deserializer} turns a source payload into values at the head of a chain. Public API; connectors (Avro, JSON) implement it.
 */
@NullMarked
package dev.etl.deser;

import org.jspecify.annotations.NullMarked;
