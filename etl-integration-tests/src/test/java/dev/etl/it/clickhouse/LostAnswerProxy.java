package dev.etl.it.clickhouse;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of one ClickHouse replica that, once {@link #arm() armed}, lets the next
 * {@code INSERT} request through to the server but never delivers its answer: the server commits the
 * insert ({@code wait_end_of_query=1} means the answer starts only after that), the client waits for
 * an answer that never comes and times out. This is the "insert committed, answer lost" failure,
 * made deterministic. Everything else is passed through byte for byte.
 *
 * <p>HTTP/1.1 keeps one request at a time on a connection, so after an {@code INSERT} request line
 * is seen on a connection, every byte the server sends back on it is that insert's answer.
 */
final class LostAnswerProxy implements AutoCloseable {
    /** Both transports put the statement in the URL ({@code query=INSERT…}); reads carry no INSERT at all. */
    private static final byte[] INSERT_MARK = "INSERT".getBytes(StandardCharsets.ISO_8859_1);

    private final URI upstream;
    private final ServerSocket server;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final CompletableFuture<String> swallowed = new CompletableFuture<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    LostAnswerProxy(String upstreamUrl) throws IOException {
        this.upstream = URI.create(upstreamUrl);
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = new Thread(this::acceptLoop, "lost-answer-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The proxy's URL, to configure as the replica. */
    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Swallows the answer of the next INSERT request. */
    void arm() {
        armed.set(true);
    }

    /** Completes with the first bytes of the swallowed answer (its status line) once the server has answered. */
    CompletableFuture<String> swallowedAnswer() {
        return swallowed;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket up = new Socket(upstream.getHost(), upstream.getPort());
                sockets.add(client);
                sockets.add(up);
                AtomicBoolean swallow = new AtomicBoolean();
                start(() -> requests(client, up, swallow));
                start(() -> answers(up, client, swallow));
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("LostAnswerProxy: " + e);
                }
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "lost-answer-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Client → server; marks the connection when an armed proxy sees an INSERT request line. */
    private void requests(Socket client, Socket up, AtomicBoolean swallow) {
        byte[] buf = new byte[64 * 1024];
        byte[] tail = new byte[0];
        try (InputStream in = client.getInputStream();
                OutputStream out = up.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (armed.get() && !swallow.get()) {
                    byte[] window = new byte[tail.length + n];
                    System.arraycopy(tail, 0, window, 0, tail.length);
                    System.arraycopy(buf, 0, window, tail.length, n);
                    if (indexOf(window, INSERT_MARK) >= 0 && armed.compareAndSet(true, false)) {
                        swallow.set(true);
                    }
                    int keep = Math.min(window.length, INSERT_MARK.length);
                    tail = java.util.Arrays.copyOfRange(window, window.length - keep, window.length);
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // connection closed (the client gave up, or close())
        } finally {
            closeQuietly(client);
            closeQuietly(up);
        }
    }

    /** Server → client; the answer of a marked connection is read and dropped. */
    private void answers(Socket up, Socket client, AtomicBoolean swallow) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = up.getInputStream();
                OutputStream out = client.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (swallow.get()) {
                    if (!swallowed.isDone()) {
                        String head = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
                        int eol = head.indexOf("\r\n");
                        swallowed.complete(eol >= 0 ? head.substring(0, eol) : head);
                    }
                    continue; // lost
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // closed
        } finally {
            closeQuietly(client);
            closeQuietly(up);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // ignore
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // ignore
        }
        sockets.forEach(LostAnswerProxy::closeQuietly);
    }
}
