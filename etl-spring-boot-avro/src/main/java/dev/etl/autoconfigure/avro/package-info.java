/** Auto-configuration of the Avro connector ({@code etl.avro.*}): the schema-registry client and its connection details. Public API. */
@NullMarked
package dev.etl.autoconfigure.avro;

import org.jspecify.annotations.NullMarked;
