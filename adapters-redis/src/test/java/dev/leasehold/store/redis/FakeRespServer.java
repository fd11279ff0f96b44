package dev.leasehold.store.redis;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A scripted server at the wire level (RESP2) on a free loopback port, standing for a broken
 * "Redis-compatible" server: it answers the connection handshake as an old Redis would ({@code
 * HELLO} unknown, so the client speaks RESP2; {@code CLIENT ...}, {@code SELECT} and {@code PING}
 * accepted) and every other command with what {@code script} returns: raw RESP bytes, e.g. {@code
 * "+OK\r\n"}. It is not a Redis and stores nothing.
 */
final class FakeRespServer implements AutoCloseable {
  private final ServerSocket socket;
  private final Function<List<String>, String> script;
  private final List<Socket> clients = new CopyOnWriteArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();

  FakeRespServer(Function<List<String>, String> script) throws IOException {
    this.script = script;
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "fake-resp-accept");
    accept.setDaemon(true);
    accept.start();
  }

  String url() {
    return "redis://127.0.0.1:" + socket.getLocalPort();
  }

  /** The names of the commands received (upper case), in order. */
  List<String> commands() {
    return List.copyOf(seen);
  }

  /** A RESP array of RESP values given already encoded. */
  static String array(String... elements) {
    return "*" + elements.length + "\r\n" + String.join("", elements);
  }

  static String integer(long value) {
    return ":" + value + "\r\n";
  }

  static String bulk(String value) {
    return "$" + value.getBytes(StandardCharsets.UTF_8).length + "\r\n" + value + "\r\n";
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket client = socket.accept();
        clients.add(client);
        Thread t = new Thread(() -> serve(client), "fake-resp-client");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket client) {
    try (client) {
      InputStream in = new BufferedInputStream(client.getInputStream());
      OutputStream out = client.getOutputStream();
      while (true) {
        List<String> command = readCommand(in);
        if (command == null) {
          return;
        }
        String name = command.get(0).toUpperCase(Locale.ROOT);
        seen.add(name);
        String reply =
            switch (name) {
              case "HELLO" -> "-ERR unknown command 'HELLO'\r\n";
              case "CLIENT", "SELECT", "AUTH" -> "+OK\r\n";
              case "PING" -> "+PONG\r\n";
              default -> script.apply(command);
            };
        out.write(reply.getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private static List<String> readCommand(InputStream in) throws IOException {
    String header = line(in);
    if (header == null) {
      return null;
    }
    if (!header.startsWith("*")) {
      throw new IOException("not a RESP array: " + header);
    }
    int n = Integer.parseInt(header.substring(1));
    List<String> parts = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int len = Integer.parseInt(line(in).substring(1));
      byte[] data = in.readNBytes(len);
      in.readNBytes(2);
      parts.add(new String(data, StandardCharsets.UTF_8));
    }
    return parts;
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\r') {
        in.read();
        return sb.toString();
      }
      sb.append((char) c);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket c : clients) {
      c.close();
    }
  }
}
