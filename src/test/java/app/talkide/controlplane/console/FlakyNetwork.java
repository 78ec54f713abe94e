package app.talkide.controlplane.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on loopback between the browser and the application whose network can be cut: every open
 * connection is dropped and new ones are refused until it is restored. What a browser sees when Wi-Fi
 * drops, without touching the browser.
 */
final class FlakyNetwork implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean down;

    FlakyNetwork(int targetPort) {
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.startVirtualThread(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    void cut() {
        down = true;
        open.forEach(FlakyNetwork::closeQuietly);
        open.clear();
    }

    void restore() {
        down = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (down) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(upstream);
                Thread.startVirtualThread(() -> pipe(client, upstream));
                Thread.startVirtualThread(() -> pipe(upstream, client));
            } catch (IOException closed) {
                // the relay was closed, or one connection failed: keep serving the others
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            byte[] buffer = new byte[8192];
            for (int read; (read = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException cut) {
            // one side went away: close both below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        cut();
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
