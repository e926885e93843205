package dev.etl.s3;

import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The body of one GET. The SDK's stream drains what is left when closed, to reuse the connection: good
 * for a few kilobytes, wasteful for the rest of a large range, so a close with more than
 * {@link #DRAIN_LIMIT} bytes left aborts the connection instead. SDK exceptions while reading become
 * {@link IOException}s naming the object. One reader thread.
 */
final class S3BodyStream extends InputStream {
    /** Closing with more than this left unread aborts instead of draining. */
    static final long DRAIN_LIMIT = 256 * 1024;

    private final ResponseInputStream<?> body;
    private final String object;
    /** Bytes left in the body, or -1 when the length is unknown. */
    private long remaining;

    S3BodyStream(ResponseInputStream<?> body, long length, String object) {
        this.body = body;
        this.remaining = length;
        this.object = object;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            n = body.read(b, off, len);
        } catch (SdkException e) {
            throw new IOException("reading " + object + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IOException("reading " + object + " failed: " + e.getMessage(), e);
        }
        if (n > 0 && remaining > 0) {
            remaining -= n;
        } else if (n < 0) {
            remaining = 0;
        }
        return n;
    }

    @Override
    public void close() throws IOException {
        try {
            if (remaining < 0 || remaining > DRAIN_LIMIT) {
                body.abort();
            }
            body.close();
        } catch (SdkException e) {
            throw new IOException("closing " + object + " failed: " + e.getMessage(), e);
        }
    }
}
