package dev.etl.sample;

import org.springframework.test.context.ActiveProfiles;

/** {@link OrderHeadersPathTest} on the {@code headers-generic} profile ({@link OrderHeadersGenericConfiguration}). */
@ActiveProfiles("headers-generic")
class OrderHeadersGenericPathTest extends OrderHeadersPathTest {}
