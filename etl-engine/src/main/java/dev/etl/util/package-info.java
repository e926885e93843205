/**
 * Small utilities for connector authors: {@link dev.etl.util.RateLimitedLog} (hot-path logging that reports what it suppressed), {@link dev.etl.util.Suggestion} (did-you-mean for error messages) and {@link dev.etl.util.Secrets} (masking secrets in text that leaves the process). Public API.
 */
@NullMarked
package dev.etl.util;

import org.jspecify.annotations.NullMarked;
