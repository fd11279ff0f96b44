package dev.leasehold.store.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback TCP proxy in front of a real database server, for fault injection: {@link #freeze()}
 * stops forwarding (a hung server: connections stay open, nothing answers), {@link #cut()} drops
 * every connection (a server that went away), {@link #thaw()} lets traffic through again.
 */
final class TcpProxy implements AutoCloseable {
  private final String host;
  private final int port;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "tcp-proxy");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean frozen;

  TcpProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  void freeze() {
    frozen = true;
  }

  void thaw() {
    frozen = false;
  }

  void cut() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(host, port);
        sockets.add(client);
        sockets.add(upstream);
        threads.execute(() -> pump(client, upstream));
        threads.execute(() -> pump(upstream, client));
      } catch (IOException e) {
        // closed, or the upstream refused: the client sees its connection fail
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        while (frozen) {
          Thread.sleep(10);
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // connection closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
    threads.shutdownNow();
  }
}
