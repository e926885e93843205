/**
 * Error classes, policies ({@code SKIP}, {@code DEAD_LETTER}, {@code FAIL}), the skip budget, and the exceptions that carry where a failure happened. Public API.
 */
@NullMarked
package dev.etl.error;

import org.jspecify.annotations.NullMarked;
