package dev.etl.s3.parquet;

import dev.etl.s3.CorruptSplitException;
import dev.etl.s3.ObjectStore;
import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.avro.AvroReadSupport;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;

/**
 * One Parquet object opened for reading: its footer (read on {@link #open}), its Avro schema, and its row
 * groups read one at a time through one {@link RangedObjectStream}. A failure Parquet reports is a
 * {@link CorruptSplitException} naming the object and the row group, unless the store caused it (then
 * the store's own {@link IOException} is thrown). Not thread-safe: one reader thread owns it.
 */
final class ParquetObject implements Closeable {
    /** The Avro schema parquet-avro writes into the footer's key-value metadata. */
    static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";
    /** The key older parquet-avro versions wrote. */
    static final String OLD_AVRO_SCHEMA_KEY = "avro.schema";

    private final String where;
    private final ObjectInputFile file;
    private final RangedObjectStream stream;
    private final ParquetReadOptions options;
    private final ParquetMetadata footer;
    private ParquetFileReader reader;
    private MessageColumnIO columnIO;
    private long reportedBytes;

    private ParquetObject(
            String where,
            ObjectInputFile file,
            RangedObjectStream stream,
            ParquetReadOptions options,
            ParquetMetadata footer) {
        this.where = where;
        this.file = file;
        this.stream = stream;
        this.options = options;
        this.footer = footer;
    }

    /**
     * Reads the footer of {@code s3://bucket/key}, {@code length} bytes long.
     *
     * @throws CorruptSplitException when the object is not a Parquet file or its footer does not decode
     * @throws IOException when the store fails
     */
    static ParquetObject open(ObjectStore store, String bucket, String key, String etag, long length)
            throws IOException, CorruptSplitException {
        ObjectInputFile file = new ObjectInputFile(store, bucket, key, etag, length);
        String where = file.toString();
        RangedObjectStream stream = file.newStream();
        ParquetReadOptions options = ParquetReadOptions.builder(configuration())
                // Pages written with a CRC are checked: a flipped bit is a corrupt split, not a wrong row.
                .usePageChecksumVerification(true)
                .build();
        try {
            ParquetMetadata footer = ParquetFileReader.readFooter(file, options, stream);
            return new ParquetObject(where, file, stream, options, footer);
        } catch (IOException | RuntimeException e) {
            stream.close();
            options.getCodecFactory().release();
            throw corrupt(e, where + " (" + length + " bytes): not a Parquet file, or its footer does not decode");
        }
    }

    /**
     * What parquet-avro reads with: generic records, the modern converter, INT96 as 12-byte fixed, and a
     * derived schema's lists as plain arrays (not arrays of one-field {@code element} records).
     */
    private static PlainParquetConfiguration configuration() {
        PlainParquetConfiguration conf = new PlainParquetConfiguration();
        conf.setBoolean(AvroReadSupport.AVRO_COMPATIBILITY, false);
        conf.setBoolean(AvroReadSupport.READ_INT96_AS_FIXED, true);
        conf.setBoolean(AvroSchemaConverter.ADD_LIST_ELEMENT_RECORDS, false);
        return conf;
    }

    int rowGroupCount() {
        return footer.getBlocks().size();
    }

    long rowCount(int rowGroup) {
        return footer.getBlocks().get(rowGroup).getRowCount();
    }

    long compressedBytes(int rowGroup) {
        return footer.getBlocks().get(rowGroup).getCompressedSize();
    }

    /** Where row group {@code index}'s column chunks begin in the object. */
    long rowGroupStart(int index) {
        long start = Long.MAX_VALUE;
        for (ColumnChunkMetaData column : footer.getBlocks().get(index).getColumns()) {
            start = Math.min(start, column.getStartingPos());
        }
        return start;
    }

    /** Where row group {@code index}'s column chunks end in the object. */
    long rowGroupEnd(int index) {
        long end = 0;
        for (ColumnChunkMetaData column : footer.getBlocks().get(index).getColumns()) {
            end = Math.max(end, column.getStartingPos() + column.getTotalSize());
        }
        return end;
    }

    /** Bytes received from the store since the last call (for {@code RowOutput.bytesRead}). */
    long newBytes() {
        long now = stream.bytesFetched();
        long delta = now - reportedBytes;
        reportedBytes = now;
        return delta;
    }

    /** Ranged requests made so far. */
    int requests() {
        return stream.requests();
    }

    /**
     * The Avro schema of the rows: the footer's {@value #AVRO_SCHEMA_KEY} metadata when present (the
     * schema the file was written with), else the one parquet-avro derives from the Parquet schema.
     */
    Schema avroSchema() throws CorruptSplitException {
        FileMetaData meta = footer.getFileMetaData();
        Map<String, String> keyValues = meta.getKeyValueMetaData();
        String json = keyValues.get(AVRO_SCHEMA_KEY);
        if (json == null) {
            json = keyValues.get(OLD_AVRO_SCHEMA_KEY);
        }
        try {
            if (json != null) {
                return new Schema.Parser().parse(json);
            }
            return new AvroSchemaConverter(configuration()).convert(meta.getSchema());
        } catch (RuntimeException e) {
            throw new CorruptSplitException(
                    where + ": "
                            + (json != null
                                    ? "its " + AVRO_SCHEMA_KEY + " metadata is not a valid Avro schema"
                                    : "no Avro schema can be derived from its Parquet schema")
                            + ": " + e,
                    e);
        }
    }

    /** Builds Avro records of {@code schema} from this file's pages (once per read). */
    RecordMaterializer<GenericRecord> materializer(Schema schema) throws CorruptSplitException {
        FileMetaData meta = footer.getFileMetaData();
        PlainParquetConfiguration conf = configuration();
        // The materializer builds records of exactly the schema the rows are registered and encoded with.
        conf.set("parquet.avro.read.schema", schema.toString());
        AvroReadSupport<GenericRecord> support = new AvroReadSupport<>(GenericData.get());
        MessageType fileSchema = meta.getSchema();
        try {
            ReadSupport.ReadContext context = support.init(conf, meta.getKeyValueMetaData(), fileSchema);
            columnIO = new ColumnIOFactory(meta.getCreatedBy()).getColumnIO(fileSchema, fileSchema, true);
            return support.prepareForRead(conf, meta.getKeyValueMetaData(), fileSchema, context);
        } catch (RuntimeException e) {
            throw new CorruptSplitException(
                    where + ": its Parquet schema cannot be read as Avro schema " + schema.getFullName() + ": " + e, e);
        }
    }

    /**
     * Reads row group {@code index} (all its column chunks, in about one request) into memory. The caller
     * closes it.
     */
    PageReadStore readRowGroup(int index) throws IOException, CorruptSplitException {
        stream.expect(rowGroupStart(index), rowGroupEnd(index));
        try {
            if (reader == null) {
                reader = new ParquetFileReader(file, footer, options, stream);
            }
            PageReadStore pages = reader.readRowGroup(index);
            if (pages == null) {
                throw new IllegalStateException("no row group " + index);
            }
            return pages;
        } catch (IOException | RuntimeException e) {
            throw corrupt(e, rowGroup(index) + " does not decode");
        }
    }

    /** The records of a row group read by {@link #readRowGroup}. */
    RecordReader<GenericRecord> records(int index, PageReadStore pages, RecordMaterializer<GenericRecord> materializer)
            throws IOException, CorruptSplitException {
        try {
            return columnIO.getRecordReader(pages, materializer, FilterCompat.NOOP);
        } catch (RuntimeException e) {
            throw corrupt(e, rowGroup(index) + " does not decode");
        }
    }

    /** The next record of row group {@code index}, its {@code row}-th. */
    GenericRecord next(RecordReader<GenericRecord> records, int index, long row)
            throws IOException, CorruptSplitException {
        GenericRecord record;
        try {
            record = records.read();
        } catch (RuntimeException e) {
            throw corrupt(e, rowGroup(index) + ": row " + row + " does not decode");
        }
        if (record == null) {
            throw new CorruptSplitException(rowGroup(index) + ": row " + row + " decodes to no record", null);
        }
        return record;
    }

    /** {@code s3://bucket/key row group i of n} for errors. */
    String rowGroup(int index) {
        return where + " row group " + index + " of " + rowGroupCount();
    }

    String where() {
        return where;
    }

    @Override
    public void close() {
        if (reader != null) {
            try {
                reader.close(); // closes the stream and releases the decompressors
            } catch (IOException e) {
                // The stream's close does not fail; nothing else to release.
            }
        } else {
            stream.close();
            options.getCodecFactory().release();
        }
    }

    /**
     * A failure while Parquet read: the store's own exception when the store caused it (so the read is
     * retried), else a corrupt split saying {@code what}.
     */
    static CorruptSplitException corrupt(Exception failure, String what) throws IOException {
        IOException storage = StorageFailure.find(failure);
        if (storage != null) {
            throw storage;
        }
        return new CorruptSplitException(what + ": " + failure, failure);
    }
}
