package dev.etl.clickhouse;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for a ClickHouse replica at the HTTP level (raw sockets, HTTP/1.1, keep-alive): it reads each
 * request whole (a {@code Content-Length} or chunked body) and answers it with a fixed status and body,
 * except that it loses the race a real server loses at its {@code keep_alive_timeout}:
 *
 * <p>A request that arrives on a kept-alive connection idle for {@code idleCloseMs} or longer finds the
 * connection closed, without any byte of an answer and with the request unread. ClickHouse closes an idle
 * connection at its timeout, and a client's request crosses that close on the wire only when it goes out in
 * the same few milliseconds (measured against 18.16 with both transports: idle times of 2,980 to 3,001 ms
 * for a 3 s timeout, a few requests in ten there); here every request after the idle time meets it, so the
 * failure is deterministic. A fresh connection is always answered.
 *
 * <p>It can also answer with an endless body (for the transports' limits on what they read) and count
 * what it sent.
 */
final class KeepAliveRaceReplica implements AutoCloseable {
    private final ServerSocket server;
    private final long idleCloseMs;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private final AtomicInteger closedUnanswered = new AtomicInteger();
    private final AtomicLong endlessBytesSent = new AtomicLong();
    private final CountDownLatch endlessEnded = new CountDownLatch(1);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String body = "";
    private volatile String extraHeaders = "";
    private volatile boolean endless;
    private volatile boolean closeEveryRequest;
    private volatile boolean neverAnswer;
    private volatile boolean closed;

    KeepAliveRaceReplica(long idleCloseMs) throws IOException {
        this.idleCloseMs = idleCloseMs;
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "keep-alive-race-replica");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Answers with {@code status}, {@code body} and extra header lines (each ending in CRLF). */
    KeepAliveRaceReplica answer(int status, String body, String extraHeaders) {
        this.status = status;
        this.body = body;
        this.extraHeaders = extraHeaders;
        return this;
    }

    /** Answers with {@code status} and a chunked body of digits that never ends. */
    KeepAliveRaceReplica answerEndlessly(int status, String extraHeaders) {
        this.status = status;
        this.extraHeaders = extraHeaders;
        this.endless = true;
        return this;
    }

    /** Every request from now on, on a fresh connection too, finds its connection closed. */
    void closeEveryRequest() {
        closeEveryRequest = true;
    }

    /** Requests from now on are read and never answered. */
    void neverAnswer() {
        neverAnswer = true;
    }

    int connections() {
        return connections.get();
    }

    /** Requests whose first byte arrived (answered or not). */
    int requests() {
        return requests.get();
    }

    int answered() {
        return answered.get();
    }

    int closedUnanswered() {
        return closedUnanswered.get();
    }

    long endlessBytesSent() {
        return endlessBytesSent.get();
    }

    /** Waits until an endless answer stopped because the client closed the connection. */
    boolean awaitEndlessEnded(long millis) throws InterruptedException {
        return endlessEnded.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                connections.incrementAndGet();
                Thread t = new Thread(() -> serve(socket), "keep-alive-race-replica-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("KeepAliveRaceReplica: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            long lastAnswerNs = -1;
            while (true) {
                int first = in.read(); // the next request's first byte, however long the connection idles
                if (first < 0) {
                    return;
                }
                requests.incrementAndGet();
                boolean idleTooLong =
                        lastAnswerNs >= 0 && (System.nanoTime() - lastAnswerNs) / 1_000_000 >= idleCloseMs;
                if (closeEveryRequest || idleTooLong) {
                    closedUnanswered.incrementAndGet();
                    return; // closed with the request unread, as when the server's idle timer fires
                }
                readRequest(first, in);
                if (neverAnswer) {
                    while (in.read() >= 0) {
                        // until the client gives up
                    }
                    return;
                }
                String head = "HTTP/1.1 " + status + " X\r\nContent-Type: text/plain; charset=UTF-8\r\n"
                        + "Connection: Keep-Alive\r\nKeep-Alive: timeout=3\r\n" + extraHeaders;
                if (endless) {
                    sendEndlessly(out, head);
                    return;
                }
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                answered.incrementAndGet(); // before the answer leaves: the client may look right after it
                out.write(
                        (head + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(bytes);
                out.flush();
                lastAnswerNs = System.nanoTime();
            }
        } catch (IOException e) {
            // the client closed the connection
        }
    }

    private void sendEndlessly(OutputStream out, String head) {
        byte[] chunk = ("10000\r\n" + "0123456789abcdef".repeat(4096) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        try {
            out.write((head + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            while (!closed) {
                out.write(chunk);
                endlessBytesSent.addAndGet(0x10000);
            }
        } catch (IOException e) {
            // the client stopped reading and closed the connection
        } finally {
            endlessEnded.countDown();
        }
    }

    /** Reads the rest of a request: its head up to the empty line, then its body (Content-Length or chunked). */
    private static void readRequest(int first, InputStream in) throws IOException {
        String head = line(first, in);
        long length = 0;
        boolean chunked = false;
        for (String line = head; !line.isEmpty(); line = line(in.read(), in)) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(
                        line.substring("content-length:".length()).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (!chunked) {
            in.skipNBytes(length);
            return;
        }
        while (true) {
            String size = line(in.read(), in);
            int semicolon = size.indexOf(';');
            long n = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).strip(), 16);
            if (n == 0) {
                while (!line(in.read(), in).isEmpty()) {
                    // trailers
                }
                return;
            }
            in.skipNBytes(n);
            line(in.read(), in); // the CRLF after the chunk
        }
    }

    /** One CRLF-terminated line starting with byte {@code first}, without the CRLF. */
    private static String line(int first, InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b = first;
        while (true) {
            if (b < 0) {
                throw new IOException("request cut short");
            }
            if (b == '\n') {
                String s = line.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
            b = in.read();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
