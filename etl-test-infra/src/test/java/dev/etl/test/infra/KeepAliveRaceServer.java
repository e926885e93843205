package dev.etl.test.infra;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 server on 127.0.0.1 that answers every request with a fixed body and keeps connections
 * alive, except that it loses the race ClickHouse loses at its {@code keep_alive_timeout}: a request that
 * arrives on a kept-alive connection idle for {@code idleCloseMs} or longer finds the connection closed,
 * without any byte of an answer. The real server closes at the timeout and the request crosses the close
 * on the wire only if it goes out in the same few milliseconds (measured against 18.16: idle 2,994 to
 * 3,001 ms); here the close happens whenever the request comes after the idle time, so the failure is
 * deterministic. A fresh connection is always answered.
 */
final class KeepAliveRaceServer implements AutoCloseable {

    private final ServerSocket server;

    private final long idleCloseMs;

    private final String body;

    private final AtomicInteger connections = new AtomicInteger();

    private final AtomicInteger requests = new AtomicInteger();

    private final AtomicInteger closedUnanswered = new AtomicInteger();

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private volatile boolean closeEveryRequest;

    private volatile boolean neverAnswer;

    private volatile boolean closed;

    KeepAliveRaceServer(long idleCloseMs, String body) throws IOException {
        this.idleCloseMs = idleCloseMs;
        this.body = body;
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "keep-alive-race-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The server's base URL. */
    String url() {
        return "http://127.0.0.1:" + this.server.getLocalPort();
    }

    /** From now on every request, on a fresh connection too, finds its connection closed. */
    void closeEveryRequest() {
        this.closeEveryRequest = true;
    }

    /** From now on requests are read and never answered (the connection stays open). */
    void neverAnswer() {
        this.neverAnswer = true;
    }

    /** Connections accepted so far. */
    int connections() {
        return this.connections.get();
    }

    /** Requests whose first byte arrived so far (answered or not). */
    int requests() {
        return this.requests.get();
    }

    /** Requests that found their connection closed. */
    int closedUnanswered() {
        return this.closedUnanswered.get();
    }

    private void acceptLoop() {
        while (!this.closed) {
            try {
                Socket socket = this.server.accept();
                this.sockets.add(socket);
                this.connections.incrementAndGet();
                Thread t = new Thread(() -> serve(socket), "keep-alive-race-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException ex) {
                if (!this.closed) {
                    System.err.println("KeepAliveRaceServer: " + ex);
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
                this.requests.incrementAndGet();
                boolean idleTooLong =
                        lastAnswerNs >= 0 && (System.nanoTime() - lastAnswerNs) / 1_000_000 >= this.idleCloseMs;
                if (this.closeEveryRequest || idleTooLong) {
                    this.closedUnanswered.incrementAndGet();
                    return; // closed with the request unread, as the server's idle timer fired
                }
                readRequest(first, in);
                if (this.neverAnswer) {
                    while (in.read() >= 0) {
                        // until the client gives up
                    }
                    return;
                }
                byte[] answer = this.body.getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/tab-separated-values; charset=UTF-8\r\n"
                                + "Connection: Keep-Alive\r\nKeep-Alive: timeout=3\r\nContent-Length: " + answer.length
                                + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.write(answer);
                out.flush();
                lastAnswerNs = System.nanoTime();
            }
        } catch (IOException ex) {
            // the client closed the connection
        }
    }

    /** Reads the rest of a request: its head up to the empty line, then Content-Length bytes of body. */
    private static void readRequest(int first, InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.write(first);
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("request head cut short");
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        long length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Long.parseLong(
                        line.substring("content-length:".length()).strip());
            }
        }
        in.skipNBytes(length);
    }

    @Override
    public void close() throws IOException {
        this.closed = true;
        this.server.close();
        for (Socket socket : this.sockets) {
            socket.close();
        }
    }
}
