/**
 * Reading Avro object container files ({@code .avro}, "Obj\1"), for connectors that read such files
 * from any byte source: {@link dev.etl.avro.container.AvroContainerHeader} (the magic, metadata, writer
 * schema, codec and sync marker, read within bounds) and {@link dev.etl.avro.container.AvroContainerReader}
 * (the blocks, checked whole, decompressed and cut into records' binary bodies by
 * {@link dev.etl.avro.binary.AvroSkipper}, never decoded into objects). Built on
 * {@link dev.etl.avro.binary}: the same cursor, varints and {@link dev.etl.avro.AvroLimits}, and the same
 * error, {@link dev.etl.avro.binary.MalformedAvroException}. The S3 backfill (etl-s3) reads its
 * {@code avro} format with it and keeps only what is about object storage (ranges, splits, progress).
 *
 * <p>Codecs: {@code null} and {@code deflate} always; {@code zstandard} with zstd-jni
 * ({@code com.github.luben:zstd-jni}, an optional dependency of etl-avro: add it, or depend on etl-s3,
 * which brings it; on the module path, resolve its module {@code com.github.luben.zstd_jni} too, as
 * etl-avro only {@code requires static} it); {@code snappy}, {@code bzip2} and {@code xz} through Avro's
 * codec classes, with their libraries. Without its library, a codec fails naming it.
 */
@NullMarked
package dev.etl.avro.container;

import org.jspecify.annotations.NullMarked;
