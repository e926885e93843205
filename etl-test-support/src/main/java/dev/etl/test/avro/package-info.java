/** Avro test helpers: {@code StubSchemaRegistry}, an in-process schema registry. Public API. */
@NullMarked
package dev.etl.test.avro;

import org.jspecify.annotations.NullMarked;
