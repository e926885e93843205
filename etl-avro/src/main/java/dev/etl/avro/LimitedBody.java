package dev.etl.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A registry answer's body as a string of at most {@code max} bytes: a declared {@code Content-Length}
 * above it, or more bytes than that arriving, cancels the body (the rest is never read) and fails with
 * {@link TooLarge}. Used once, by the HTTP client's thread that delivers the body.
 */
final class LimitedBody implements HttpResponse.BodySubscriber<String> {

    /** The answer is longer than the limit. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        final int status;

        TooLarge(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private final int max;
    private final int status;
    private final long declared;
    private final CompletableFuture<String> body = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    LimitedBody(int max, HttpResponse.ResponseInfo info) {
        this.max = max;
        this.status = info.statusCode();
        this.declared = info.headers().firstValueAsLong("Content-Length").orElse(-1);
    }

    @Override
    public CompletionStage<String> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        if (declared > max) {
            subscription.cancel();
            body.completeExceptionally(new TooLarge(status, "Content-Length " + declared));
            return;
        }
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            int n = buffer.remaining();
            if (n > max - bytes.size()) {
                subscription.cancel();
                body.completeExceptionally(new TooLarge(status, "more than " + max + " bytes received"));
                return;
            }
            byte[] chunk = new byte[n];
            buffer.get(chunk);
            bytes.write(chunk, 0, n);
        }
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toString(StandardCharsets.UTF_8));
    }
}
