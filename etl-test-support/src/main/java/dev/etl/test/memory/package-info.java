/** An in-memory source for tests: {@code MemorySource} and the {@code MemorySourceHandle} that feeds it. Public API. */
@NullMarked
package dev.etl.test.memory;

import org.jspecify.annotations.NullMarked;
