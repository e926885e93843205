package dev.etl.sample;

import org.springframework.test.context.ActiveProfiles;

/** {@link OrderHeadersPathTest} on the {@code headers-transcode} profile ({@link OrderHeadersTranscodingConfiguration}). */
@ActiveProfiles("headers-transcode")
class OrderHeadersTranscodingPathTest extends OrderHeadersPathTest {}
