package dev.etl.sample;

import org.springframework.test.context.ActiveProfiles;

/** {@link OrderHeadersPathTest} on the {@code headers-view} profile ({@link OrderHeadersViewConfiguration}). */
@ActiveProfiles("headers-view")
class OrderHeadersViewPathTest extends OrderHeadersPathTest {}
