/**
 * The low-level Avro binary layer, for connector authors who read Avro bytes themselves: the
 * {@link dev.etl.avro.binary.AvroCursor cursor} over a body in a {@code byte[]}, the
 * {@link dev.etl.avro.binary.AvroSkipper skipper} of values, the {@link dev.etl.avro.binary.AvroFraming
 * framing} a payload names its writer schema with, and the one error for bytes that do not match their
 * schema, {@link dev.etl.avro.binary.MalformedAvroException}. etl's own decoders are built on it: the Avro
 * deserializer's fast path, the Avro → RowBinary transcoder and the S3 backfill's reader of object
 * container files.
 *
 * <p>Everything here keeps the input bounds of {@link dev.etl.avro.AvroLimits}: a body is read within its
 * bounds or rejected with a {@code MalformedAvroException}, never by an unbounded allocation or loop.
 * Nothing here is thread-safe; a cursor belongs to one lane. Most applications need none of it: they use
 * {@code AvroDeserializer} or the transcoder.
 */
@NullMarked
package dev.etl.avro.binary;

import org.jspecify.annotations.NullMarked;
