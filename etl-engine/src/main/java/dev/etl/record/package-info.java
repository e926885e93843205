/**
 * Records as the chain sees them: {@link dev.etl.record.Payload} views over source bytes, the current record's {@link dev.etl.record.RecordMeta}, the push-style {@link dev.etl.record.Collector}, and the fixed {@link dev.etl.record.KeyHash}. Public API.
 */
@NullMarked
package dev.etl.record;

import org.jspecify.annotations.NullMarked;
