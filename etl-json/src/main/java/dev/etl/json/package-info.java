/**
 * JSON deserialization with Jackson 3: {@link dev.etl.json.JsonDeserializer} and its
 * {@link dev.etl.json.JsonFraming}s. Public API.
 */
@NullMarked
package dev.etl.json;

import org.jspecify.annotations.NullMarked;
