package dev.etl.avro.container;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.etl.avro.binary.MalformedAvroException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.file.Codec;
import org.apache.avro.file.CodecFactory;
import org.jspecify.annotations.Nullable;

/**
 * Decompresses the blocks of an Avro object container file. {@code null}, {@code deflate} and
 * {@code zstandard} are decoded here, reusing one inflater or zstd context and one output array per
 * reader; any other codec Avro knows ({@code snappy}, {@code bzip2}, {@code xz}, or one registered with
 * {@link CodecFactory#addCodec}) goes through Avro's own codec class, provided the library it needs is
 * on the class path. {@code zstandard} needs zstd-jni, an optional dependency of etl-avro. One reader;
 * not thread-safe.
 */
abstract class BlockCodec implements AutoCloseable {
    /** Bytes kept free before a block's data: the first record's single-object header may be written there. */
    static final int HEADROOM = AvroContainerReader.HEADROOM;

    /** The decompressed block: {@code [HEADROOM, HEADROOM + length)} of {@link #data()}. */
    private byte[] data = new byte[HEADROOM + 64 * 1024];

    final byte[] data() {
        return data;
    }

    /** An array of at least {@code HEADROOM + capacity} bytes for the decompressed block. */
    final byte[] ensure(int capacity) {
        if (data.length < HEADROOM + capacity) {
            data = Arrays.copyOf(data, HEADROOM + Math.max(capacity, data.length));
        }
        return data;
    }

    /** Whether blocks are stored as they are (then the caller reads them straight into {@link #data()}). */
    boolean stored() {
        return false;
    }

    /**
     * Decompresses {@code src[0, length)} into {@link #data()} after the headroom.
     *
     * @return the decompressed length
     * @throws Failure when the data does not decompress or exceeds {@code max} bytes
     */
    abstract int decompress(byte[] src, int length, int max) throws Failure;

    @Override
    public void close() {}

    /**
     * The codec for a file's {@code avro.codec}.
     *
     * @throws MalformedAvroException naming the codec and, for one whose library is missing, the library
     */
    static BlockCodec forName(String name) {
        switch (name) {
            case "null":
                return new Stored();
            case "deflate":
                return new Deflate();
            case "zstandard":
                requireLibrary(name, BlockCodec.class);
                return new Zstandard();
            default:
                return new ViaAvro(name, avroCodec(name));
        }
    }

    /** Fails naming the library when the class {@code name} needs is not visible to {@code user}'s loader. */
    private static void requireLibrary(String name, Class<?> user) {
        String needs = requiredClass(name);
        if (needs == null) {
            return;
        }
        try {
            Class.forName(needs, false, user.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new MalformedAvroException(
                    "codec " + name + " needs " + requiredLibrary(name) + " on the class path", e);
        }
    }

    private static Codec avroCodec(String name) {
        requireLibrary(name, CodecFactory.class);
        CodecFactory factory;
        try {
            factory = CodecFactory.fromString(name);
        } catch (AvroRuntimeException e) {
            throw new MalformedAvroException("unknown Avro codec '" + name + "'", e);
        }
        try {
            // Avro keeps createInstance protected; DataFileStream calls it from inside the package.
            Method create = CodecFactory.class.getDeclaredMethod("createInstance");
            create.setAccessible(true);
            return (Codec) create.invoke(factory);
        } catch (InvocationTargetException e) {
            throw new MalformedAvroException("codec " + name + " cannot be created: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw new MalformedAvroException("codec " + name + " cannot be created: " + e, e);
        }
    }

    private static @Nullable String requiredClass(String name) {
        switch (name) {
            case "snappy":
                return "org.xerial.snappy.Snappy";
            case "bzip2":
                return "org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream";
            case "xz":
                return "org.tukaani.xz.XZInputStream";
            case "zstandard":
                return "com.github.luben.zstd.ZstdDecompressCtx";
            default:
                return null;
        }
    }

    private static String requiredLibrary(String name) {
        switch (name) {
            case "snappy":
                return "org.xerial.snappy:snappy-java";
            case "bzip2":
                return "org.apache.commons:commons-compress";
            case "zstandard":
                return "com.github.luben:zstd-jni";
            default:
                return "org.tukaani:xz";
        }
    }

    /** A block that does not decompress: the message says why. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static final class Stored extends BlockCodec {
        @Override
        boolean stored() {
            return true;
        }

        @Override
        int decompress(byte[] src, int length, int max) {
            throw new UnsupportedOperationException("stored blocks are read in place");
        }
    }

    /** Raw deflate (RFC 1951, no zlib header), as Avro's DeflateCodec writes it. */
    private static final class Deflate extends BlockCodec {
        private final Inflater inflater = new Inflater(true);

        @Override
        int decompress(byte[] src, int length, int max) throws Failure {
            inflater.reset();
            inflater.setInput(src, 0, length);
            int n = 0;
            try {
                for (; ; ) {
                    byte[] out = data();
                    int room = out.length - HEADROOM - n;
                    if (room == 0) {
                        if (n >= max) {
                            throw new Failure("the block inflates to more than " + max + " bytes", null);
                        }
                        out = ensure((int) Math.min(max, 2L * n));
                        room = out.length - HEADROOM - n;
                    }
                    n += inflater.inflate(out, HEADROOM + n, room);
                    if (inflater.finished()) {
                        return n;
                    }
                    if (inflater.needsDictionary()) {
                        throw new Failure(
                                "the block does not decompress (deflate: it asks for a preset dictionary)", null);
                    }
                    if (inflater.needsInput() && n < data().length - HEADROOM) {
                        throw new Failure("the block does not decompress (deflate: the data ends early)", null);
                    }
                }
            } catch (DataFormatException e) {
                throw new Failure("the block does not decompress (deflate: " + e.getMessage() + ")", e);
            }
        }

        @Override
        public void close() {
            inflater.end();
        }
    }

    /** One or more zstd frames; the output array grows until a block fits, then stays. */
    private static final class Zstandard extends BlockCodec {
        private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();

        @Override
        int decompress(byte[] src, int length, int max) throws Failure {
            long declared = Zstd.getFrameContentSize(src, 0, length);
            if (declared > max) {
                throw new Failure("the block declares " + declared + " decompressed bytes, over " + max, null);
            }
            if (declared > 0) {
                ensure((int) declared);
            }
            for (; ; ) {
                byte[] out = data();
                try {
                    return ctx.decompressByteArray(out, HEADROOM, out.length - HEADROOM, src, 0, length);
                } catch (ZstdException e) {
                    int capacity = out.length - HEADROOM;
                    if (e.getErrorCode() != Zstd.errDstSizeTooSmall() || capacity >= max) {
                        throw new Failure(
                                e.getErrorCode() == Zstd.errDstSizeTooSmall()
                                        ? "the block decompresses to more than " + max + " bytes"
                                        : "the block does not decompress (zstd: " + e.getMessage() + ")",
                                e);
                    }
                    ctx.reset();
                    ensure((int) Math.min(max, 2L * capacity));
                }
            }
        }

        @Override
        public void close() {
            ctx.close();
        }
    }

    /** Avro's own codec class: it allocates its output per block, which we copy after the headroom. */
    private static final class ViaAvro extends BlockCodec {
        private final String name;
        private final Codec codec;

        ViaAvro(String name, Codec codec) {
            this.name = name;
            this.codec = codec;
        }

        @Override
        int decompress(byte[] src, int length, int max) throws Failure {
            ByteBuffer out;
            try {
                out = codec.decompress(ByteBuffer.wrap(src, 0, length));
            } catch (java.io.IOException | RuntimeException | LinkageError e) {
                throw new Failure("the block does not decompress (" + name + ": " + e + ")", e);
            }
            int n = out.remaining();
            if (n > max) {
                throw new Failure("the block decompresses to " + n + " bytes, over " + max, null);
            }
            out.get(ensure(n), HEADROOM, n);
            return n;
        }
    }
}
