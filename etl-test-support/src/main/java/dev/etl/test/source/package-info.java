/** The contract test every source's lanes must pass: {@code SourceLaneContract}. Public API. */
@NullMarked
package dev.etl.test.source;

import org.jspecify.annotations.NullMarked;
