/** The pipeline's health indicator ({@code management.health.etl.*}). Public API. */
@NullMarked
package dev.etl.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
