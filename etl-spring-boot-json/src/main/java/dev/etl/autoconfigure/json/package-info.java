/**
 * Auto-configuration of the JSON connector ({@code etl.json.*}): the
 * {@link dev.etl.autoconfigure.json.JsonDeserializers} bean.
 */
@NullMarked
package dev.etl.autoconfigure.json;

import org.jspecify.annotations.NullMarked;
