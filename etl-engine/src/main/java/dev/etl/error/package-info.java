/**
 * Errors and how they are reported: error classes, policies ({@code SKIP}, {@code DEAD_LETTER}, {@code FAIL}), the skip budget, the exceptions that carry where a failure happened, and what connectors use to report failures safely: {@link dev.etl.error.Secrets} (masking secrets in text that leaves the process), {@link dev.etl.error.RateLimitedLog} (repeated failure logs that say what they suppressed) and {@link dev.etl.error.Suggestion} (did-you-mean for configuration errors). Public API.
 */
@NullMarked
package dev.etl.error;

import org.jspecify.annotations.NullMarked;
