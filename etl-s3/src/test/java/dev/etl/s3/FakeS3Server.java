package dev.etl.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Just enough of the S3 REST API, path-style, for {@link S3ObjectStore}: ListObjectsV2 (two keys a page,
 * so listing must paginate), HEAD, and GET with {@code Range} and {@code If-Match}. Requests are not
 * authenticated, except that the bucket {@code forbidden} answers 403. Bound to 127.0.0.1.
 */
final class FakeS3Server implements AutoCloseable {
    static final int PAGE = 2;

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final NavigableMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    final AtomicInteger gets = new AtomicInteger();
    final List<String> ranges = new java.util.concurrent.CopyOnWriteArrayList<>();

    FakeS3Server() throws IOException {
        // Without TCP_NODELAY, the JDK server's separate header and body writes meet delayed ACKs: 40 ms a GET.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    void put(String bucket, String key, byte[] data) {
        objects.put(bucket + "/" + key, data);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = URLDecoder.decode(
                            exchange.getRequestURI().getRawPath().replace("+", "%2B"), StandardCharsets.UTF_8)
                    .substring(1);
            int slash = path.indexOf('/');
            String bucket = slash < 0 ? path : path.substring(0, slash);
            String key = slash < 0 ? "" : path.substring(slash + 1);
            if (bucket.equals("forbidden")) {
                error(exchange, 403, "AccessDenied", "Access Denied");
                return;
            }
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            if (key.isEmpty() && "2".equals(query.get("list-type"))) {
                list(exchange, bucket, query);
                return;
            }
            byte[] data = objects.get(bucket + "/" + key);
            if (data == null) {
                error(exchange, 404, "NoSuchKey", "The specified key does not exist.");
                return;
            }
            String etag = '"' + InMemoryObjectStore.md5(data) + '"';
            String ifMatch = exchange.getRequestHeaders().getFirst("If-Match");
            if (ifMatch != null && !ifMatch.equals(etag)) {
                error(
                        exchange,
                        412,
                        "PreconditionFailed",
                        "At least one of the pre-conditions you specified did not hold");
                return;
            }
            exchange.getResponseHeaders().set("ETag", etag);
            exchange.getResponseHeaders().set("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT");
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Content-Length", String.valueOf(data.length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            gets.incrementAndGet();
            String range = exchange.getRequestHeaders().getFirst("Range");
            ranges.add(range == null ? "" : range);
            int from = 0;
            int to = data.length;
            int status = 200;
            if (range != null) {
                String[] parts = range.substring("bytes=".length()).split("-", -1);
                from = Integer.parseInt(parts[0]);
                to = parts[1].isEmpty() ? data.length : Math.min(data.length, Integer.parseInt(parts[1]) + 1);
                if (from >= data.length) {
                    error(exchange, 416, "InvalidRange", "The requested range is not satisfiable");
                    return;
                }
                status = 206;
                exchange.getResponseHeaders()
                        .set("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + data.length);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(status, to - from);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(data, from, to - from);
            } catch (IOException e) {
                // the client aborted the transfer
            }
        }
    }

    private void list(HttpExchange exchange, String bucket, Map<String, String> query) throws IOException {
        String prefix = query.getOrDefault("prefix", "");
        boolean urlEncoding = "url".equals(query.get("encoding-type"));
        String after = query.get("continuation-token");
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        xml.append("<Name>")
                .append(bucket)
                .append("</Name><Prefix>")
                .append(prefix)
                .append("</Prefix>");
        if (urlEncoding) {
            xml.append("<EncodingType>url</EncodingType>");
        }
        int count = 0;
        String last = null;
        boolean truncated = false;
        for (Map.Entry<String, byte[]> e :
                objects.tailMap(bucket + "/" + prefix, true).entrySet()) {
            if (!e.getKey().startsWith(bucket + "/" + prefix)) {
                break;
            }
            String key = e.getKey().substring(bucket.length() + 1);
            if (after != null && key.compareTo(after) <= 0) {
                continue;
            }
            if (count == PAGE) {
                truncated = true;
                break;
            }
            count++;
            last = key;
            xml.append("<Contents><Key>")
                    .append(urlEncoding ? URLEncoder.encode(key, StandardCharsets.UTF_8) : key)
                    .append("</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><ETag>&quot;")
                    .append(InMemoryObjectStore.md5(e.getValue()))
                    .append("&quot;</ETag><Size>")
                    .append(e.getValue().length)
                    .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
        }
        xml.append("<KeyCount>")
                .append(count)
                .append("</KeyCount><MaxKeys>")
                .append(PAGE)
                .append("</MaxKeys>");
        xml.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
        if (truncated) {
            xml.append("<NextContinuationToken>").append(last).append("</NextContinuationToken>");
        }
        xml.append("</ListBucketResult>");
        byte[] body = xml.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    private static void error(HttpExchange exchange, int status, String code, String message) throws IOException {
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
                        + "</Message><RequestId>test</RequestId></Error>")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String part : raw.split("&")) {
            int eq = part.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            out.put(name, eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
