/**
 * Small utilities for connector authors: {@link dev.etl.util.RateLimitedLog} (hot-path logging that reports what it suppressed) and {@link dev.etl.util.Suggestion} (did-you-mean for error messages). Public API.
 */
package dev.etl.util;
