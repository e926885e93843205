/** Capturing sinks for tests: {@code CaptureSink}, scripted outcomes ({@code CaptureScript}) and test encoders. Public API. */
@NullMarked
package dev.etl.test.capture;

import org.jspecify.annotations.NullMarked;
