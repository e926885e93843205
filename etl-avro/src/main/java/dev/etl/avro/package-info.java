/** The Avro connector: {@code AvroDeserializer} (Confluent wire format, single-object and raw encodings), the schema-registry client, writer schemas and decoding limits. Public API. */
@NullMarked
package dev.etl.avro;

import org.jspecify.annotations.NullMarked;
