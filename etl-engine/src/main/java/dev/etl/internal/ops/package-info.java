/**
 * Internal to the engine: not API, not exported by the module descriptor, and free to change in any release. Connectors and applications use the public packages ({@code dev.etl.ops}, {@code dev.etl.sink}, {@code dev.etl.source}, ...).
 */
package dev.etl.internal.ops;
