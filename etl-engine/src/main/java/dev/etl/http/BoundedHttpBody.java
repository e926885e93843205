package dev.etl.http;

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
 * An HTTP answer's body as a UTF-8 string of at most {@code max} bytes, for answers from servers that
 * must not be able to make the process buffer without bound: a declared {@code Content-Length} above
 * the limit, or more bytes than that arriving, cancels the body (the rest is never read) and fails with
 * {@link TooLarge}. One per answer: {@code client.sendAsync(request, (info) -> new BoundedHttpBody(max, info))}.
 */
public final class BoundedHttpBody implements HttpResponse.BodySubscriber<String> {

    /** The answer is longer than the limit. */
    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        private final int status;

        TooLarge(int status, String message) {
            super(message);
            this.status = status;
        }

        /** The answer's HTTP status. */
        public int status() {
            return status;
        }
    }

    private final int max;
    private final int status;
    private final long declared;
    private final CompletableFuture<String> body = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    /**
     * @param max  the most bytes read
     * @param info the answer's status and headers
     */
    public BoundedHttpBody(int max, HttpResponse.ResponseInfo info) {
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
