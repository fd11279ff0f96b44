package dev.leasehold.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a free loopback port to {@code 127.0.0.1:target} that can hold every byte in both
 * directions — and the closing of either side — without sending anything (no RST, no FIN): the
 * nasty kind of partition, as a stalled network link looks to both ends. {@link #resume} forwards
 * what was held.
 */
final class HoldingRelay implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean held;

  HoldingRelay(int target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    start("relay-accept", this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  void hold() {
    held = true;
  }

  void resume() {
    held = false;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket in = server.accept();
        Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(in);
        sockets.add(out);
        start("relay-up", () -> pump(in, out));
        start("relay-down", () -> pump(out, in));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16384];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) != -1) {
        waitWhileHeld();
        out.write(buffer, 0, n);
        out.flush();
      }
      waitWhileHeld();
      to.shutdownOutput();
    } catch (IOException e) {
      waitWhileHeld();
      closeQuietly(to);
    }
  }

  private void waitWhileHeld() {
    while (held && !server.isClosed()) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
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
    held = false;
    server.close();
    sockets.forEach(HoldingRelay::closeQuietly);
  }
}
