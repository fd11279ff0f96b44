package dev.leasehold.app.admin;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for what {@code java.net.http} will not do: choose the {@code Host}
 * header and the local address a request comes from, and bound the whole exchange by one deadline.
 */
final class RawHttp {
  private RawHttp() {}

  record Answer(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /**
   * Sends {@code method path} with {@code headers} (a {@code Host} among them, or none) from {@code
   * from} (any local address when null) and reads the whole answer, all within {@code limit}.
   */
  static Answer send(
      InetAddress from,
      InetSocketAddress to,
      String method,
      String path,
      Map<String, String> headers,
      Duration limit)
      throws IOException {
    long deadline = System.nanoTime() + limit.toNanos();
    try (Socket socket = new Socket()) {
      if (from != null) {
        socket.bind(new InetSocketAddress(from, 0));
      }
      socket.connect(to, (int) Math.max(1, limit.toMillis()));
      StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
      headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
      request.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
      socket.getOutputStream().write(request.toString().getBytes(UTF_8));
      socket.getOutputStream().flush();
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      while (true) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new java.net.SocketTimeoutException("no complete answer within " + limit);
        }
        socket.setSoTimeout((int) left);
        int n = in.read(buffer);
        if (n < 0) {
          break;
        }
        raw.write(buffer, 0, n);
      }
      return parse(raw.toString(ISO_8859_1));
    }
  }

  static Answer get(InetSocketAddress to, String host, String path) throws IOException {
    return send(null, to, "GET", path, Map.of("Host", host), Duration.ofSeconds(30));
  }

  private static Answer parse(String text) throws IOException {
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete answer: " + text);
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).strip());
    }
    String body = new String(text.substring(end + 4).getBytes(ISO_8859_1), UTF_8);
    return new Answer(status, headers, body);
  }
}
