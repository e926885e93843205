/**
 * JSON deserialization with Jackson 3: {@link dev.etl.json.JsonDeserializer} and its
 * {@link dev.etl.json.JsonFraming}s. Public API.
 */
package dev.etl.json;
