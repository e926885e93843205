package dev.etl.clickhouse;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * How {@link ClickHouseHttpTransport} reads an answer: at most a fixed number of body bytes, so a
 * misbehaving or hostile server cannot fill the heap with one answer. A success's body is read up to
 * {@code successLimit} bytes (the caller fails the request when there was more), an error's up to
 * {@code errorLimit} (its text is cut there). Beyond the limit the transport stops reading and the
 * connection is closed, not reused.
 *
 * <p>Also notes whether an answer arrived at all (its status line and headers): a request whose connection
 * broke before that was never answered, which is what {@link ClickHouseHttpTransport} retries once.
 *
 * <p>One instance per request.
 */
final class BoundedAnswer implements HttpResponse.BodyHandler<BoundedAnswer.Body> {

    /** The body as read: at most the limit's bytes; {@code cut} when the server sent more. */
    record Body(byte[] bytes, boolean cut, int limit) {
        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private final int successLimit;
    private final int errorLimit;
    private volatile boolean answered;

    BoundedAnswer(int successLimit, int errorLimit) {
        this.successLimit = successLimit;
        this.errorLimit = errorLimit;
    }

    /** Whether the answer's status line and headers arrived. */
    boolean answered() {
        return answered;
    }

    /** A ClickHouse error: a status other than 200, or 200 with an exception code header. */
    static boolean isError(int status, HttpHeaders headers) {
        return status != 200
                || headers.firstValue(ClickHouseHttpTransport.EXCEPTION_CODE_HEADER)
                        .isPresent();
    }

    @Override
    public HttpResponse.BodySubscriber<Body> apply(HttpResponse.ResponseInfo info) {
        answered = true;
        return new Subscriber(isError(info.statusCode(), info.headers()) ? errorLimit : successLimit);
    }

    /** Collects up to {@code limit} bytes, then cancels the rest of the body. */
    static final class Subscriber implements HttpResponse.BodySubscriber<Body> {
        private final int limit;
        private final CompletableFuture<Body> body = new CompletableFuture<>();
        private Flow.Subscription subscription;
        private byte[] bytes = new byte[0];
        private int length;
        private boolean done;

        Subscriber(int limit) {
            this.limit = limit;
        }

        @Override
        public CompletionStage<Body> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            if (done) {
                return; // signals that were on their way when the subscription was cancelled
            }
            for (ByteBuffer item : items) {
                int n = item.remaining();
                int room = limit - length;
                if (n > room) {
                    append(item, room);
                    done = true;
                    subscription.cancel();
                    body.complete(new Body(Arrays.copyOf(bytes, length), true, limit));
                    return;
                }
                append(item, n);
            }
        }

        private void append(ByteBuffer item, int n) {
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(limit, Math.max(length + n, 2L * bytes.length)));
            }
            item.get(bytes, length, n);
            length += n;
        }

        @Override
        public void onError(Throwable throwable) {
            if (!done) {
                done = true;
                body.completeExceptionally(throwable);
            }
        }

        @Override
        public void onComplete() {
            if (!done) {
                done = true;
                body.complete(new Body(Arrays.copyOf(bytes, length), false, limit));
            }
        }
    }
}
