package dev.leasehold.blackbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP relay between one daemon and its store that can hold every byte, in either
 * direction or both, and release them later: a network partition that heals. While a direction is
 * held nothing passes and nothing is closed: the bytes already read wait in the relay, the rest
 * wait in the kernel's buffers, an end of stream (FIN) waits behind them, and no RST is ever sent.
 * A connection opened during a cut is accepted (the kernel does that) but reaches the store only
 * when the cut heals. When a direction is released, what it held is delivered in order, late.
 */
final class Relay implements AutoCloseable {
  /** Which bytes to hold. */
  enum Hold {
    NONE(false, false),
    /** The store's answers only: requests still arrive and are executed. */
    ANSWERS(false, true),
    /** Both directions: the daemon and the store cannot reach each other. */
    BOTH(true, true);

    final boolean requests;
    final boolean answers;

    Hold(boolean requests, boolean answers) {
      this.requests = requests;
      this.answers = answers;
    }
  }

  private final String name;
  private final int storePort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final ExecutorService threads;
  private final AtomicLong heldBytes = new AtomicLong();
  private final Object gate = new Object();
  private Hold hold = Hold.NONE;

  private Relay(String name, int storePort) throws IOException {
    this.name = name;
    this.storePort = storePort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "relay-" + name);
              t.setDaemon(true);
              return t;
            });
    threads.execute(this::accept);
  }

  /** A relay on a free loopback port to the store on {@code 127.0.0.1:storePort}. */
  static Relay to(String name, int storePort) {
    try {
      return new Relay(name, storePort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.getLocalPort();
  }

  /**
   * The daemon's store section with the store's address replaced by this relay's ({@code
   * 127.0.0.1:<store port>} becomes {@code 127.0.0.1:<relay port>}).
   */
  String through(String storeYaml) {
    // the whole port only: 127.0.0.1:4001 must not match inside 127.0.0.1:40012
    java.util.regex.Pattern direct =
        java.util.regex.Pattern.compile("127\\.0\\.0\\.1:" + storePort + "(?!\\d)");
    if (!direct.matcher(storeYaml).find()) {
      throw new IllegalArgumentException("no 127.0.0.1:" + storePort + " in " + storeYaml);
    }
    return direct.matcher(storeYaml).replaceAll("127.0.0.1:" + port());
  }

  /** Holds every byte both ways from now on. */
  void cut() {
    set(Hold.BOTH);
  }

  /** Holds the store's answers from now on; requests still pass. */
  void holdAnswers() {
    set(Hold.ANSWERS);
  }

  /** Releases whatever was held, in order, and lets everything through again. */
  void heal() {
    set(Hold.NONE);
  }

  /** Bytes that had to wait in the relay (read while their direction was held) so far. */
  long heldBytes() {
    return heldBytes.get();
  }

  private void set(Hold next) {
    synchronized (gate) {
      hold = next;
      gate.notifyAll();
    }
  }

  private boolean isHeld(boolean answers) {
    synchronized (gate) {
      return answers ? hold.answers : hold.requests;
    }
  }

  /** Waits while the direction is held. */
  private void awaitOpen(boolean answers) throws InterruptedException {
    synchronized (gate) {
      while (answers ? hold.answers : hold.requests) {
        gate.wait();
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      sockets.add(client);
      threads.execute(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    try {
      awaitOpen(false); // a SYN sent during a cut reaches the store only when it heals
      Socket store = new Socket(InetAddress.getLoopbackAddress(), storePort);
      sockets.add(store);
      threads.execute(() -> pump(client, store, false));
      threads.execute(() -> pump(store, client, true));
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
    }
  }

  private void pump(Socket from, Socket to, boolean answers) {
    byte[] buffer = new byte[16384];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (isHeld(answers)) {
          heldBytes.addAndGet(n);
        }
        awaitOpen(answers);
        out.write(buffer, 0, n);
        out.flush();
      }
      awaitOpen(answers); // the FIN comes after the bytes before it
      to.shutdownOutput();
    } catch (IOException | InterruptedException e) {
      // one side reset or closed for good: so does the other
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
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // already closed
    }
    sockets.forEach(Relay::closeQuietly);
    threads.shutdownNow();
  }

  @Override
  public String toString() {
    return "relay " + name + " :" + port() + " -> :" + storePort;
  }
}
