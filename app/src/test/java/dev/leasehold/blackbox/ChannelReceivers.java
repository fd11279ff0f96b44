package dev.leasehold.blackbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The household's phones and mailbox, as the daemons reach them: one JDK HTTP server standing in
 * for ntfy ({@code /family}) and the Telegram Bot API ({@code /tg/bot<token>/sendMessage}), and a
 * small SMTP listener (no TLS, no login, every message accepted). Each keeps the message text it
 * got, as often as it got it.
 */
final class ChannelReceivers implements AutoCloseable {
  static final String BOT_TOKEN = "424242:BlackBoxB0tT0kenSecret";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer http;
  private final ServerSocket smtp;
  private final List<String> ntfy = new CopyOnWriteArrayList<>();
  private final List<String> telegram = new CopyOnWriteArrayList<>();
  private final List<String> mails = new CopyOnWriteArrayList<>();

  ChannelReceivers() throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/family")) {
            ntfy.add(body);
          } else if (path.equals("/tg/bot" + BOT_TOKEN + "/sendMessage")) {
            telegram.add(JSON.readTree(body).get("text").asText());
          }
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    http.start();
    smtp = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread listener = new Thread(this::serveSmtp, "bb-smtp");
    listener.setDaemon(true);
    listener.start();
  }

  /** The {@code notify:} channels of a job that reach these receivers, with {@code message}. */
  String notifyYaml(String message) {
    String base = "http://127.0.0.1:" + http.getAddress().getPort();
    return "  ntfy: {url: \""
        + base
        + "/family\", priority: high, tags: [pill]}\n"
        + "  telegram: {bot-token: \""
        + BOT_TOKEN
        + "\", chat-id: \"-1001\", api-url: \""
        + base
        + "/tg\"}\n"
        + "  email: {smtp: \"smtp://127.0.0.1:"
        + smtp.getLocalPort()
        + "\", starttls: false, from: \"leasehold@home.example\", to: [\"mom@home.example\"]}\n"
        + "  message: \""
        + message
        + "\"\n";
  }

  List<String> ntfy() {
    return List.copyOf(ntfy);
  }

  List<String> telegram() {
    return List.copyOf(telegram);
  }

  /** The decoded text of every mail. */
  List<String> mails() {
    return List.copyOf(mails);
  }

  private void serveSmtp() {
    while (!smtp.isClosed()) {
      try (Socket s = smtp.accept()) {
        BufferedReader in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = s.getOutputStream();
        say(out, "220 test ESMTP");
        String line;
        while ((line = in.readLine()) != null) {
          String upper = line.toUpperCase(Locale.ROOT);
          if (upper.startsWith("EHLO")) {
            say(out, "250-test\r\n250 8BITMIME");
          } else if (upper.startsWith("MAIL FROM:") || upper.startsWith("RCPT TO:")) {
            say(out, "250 ok");
          } else if (upper.equals("DATA")) {
            say(out, "354 go on");
            StringBuilder data = new StringBuilder();
            while (!(line = in.readLine()).equals(".")) {
              data.append(line).append('\n');
            }
            mails.add(decode(data.toString()));
            say(out, "250 queued");
          } else if (upper.equals("QUIT")) {
            say(out, "221 bye");
            break;
          } else {
            say(out, "502 not here");
          }
        }
      } catch (IOException | RuntimeException e) {
        // a sender that went away mid-mail: that mail is not counted, the next one is
      }
    }
  }

  /** The body of a message whose body is base64 (how Leasehold sends its text), decoded. */
  private static String decode(String data) {
    String body = data.substring(data.indexOf("\n\n") + 2).replace("\n", "");
    return new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
  }

  private static void say(OutputStream out, String reply) throws IOException {
    out.write((reply + "\r\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @Override
  public void close() throws IOException {
    http.stop(0);
    smtp.close();
  }

  /** The messages of a channel, each as often as it came. */
  static List<String> firstLines(List<String> messages) {
    List<String> out = new ArrayList<>();
    messages.forEach(m -> out.add(m.lines().findFirst().orElse("")));
    return out;
  }
}
