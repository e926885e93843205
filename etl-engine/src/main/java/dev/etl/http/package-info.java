/**
 * What the engine gives connectors that speak HTTP to a server (the schema registry, ClickHouse): {@link dev.etl.http.BoundedHttpBody}, an answer's body read up to a limit, so a server cannot make the process buffer without bound. Public API.
 */
@NullMarked
package dev.etl.http;

import org.jspecify.annotations.NullMarked;
