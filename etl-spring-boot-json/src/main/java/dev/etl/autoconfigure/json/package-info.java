/**
 * Auto-configuration of the JSON connector ({@code etl.json.*}): the
 * {@link dev.etl.autoconfigure.json.JsonDeserializers} bean.
 */
package dev.etl.autoconfigure.json;
