package dev.etl.sample;

import org.springframework.test.context.ActiveProfiles;

/** {@link OrderHeadersPathTest} on the {@code headers-objects} profile ({@link OrderHeadersObjectsConfiguration}). */
@ActiveProfiles("headers-objects")
class OrderHeadersObjectsPathTest extends OrderHeadersPathTest {}
