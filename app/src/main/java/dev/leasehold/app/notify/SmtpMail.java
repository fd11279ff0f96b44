package dev.leasehold.app.notify;

import dev.leasehold.app.config.NotifyChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends one plain-text mail through an SMTP server (RFC 5321): {@code smtps://} is TLS from the
 * first byte, {@code smtp://} switches to TLS with STARTTLS when the channel asks for it (and fails
 * when the server does not offer it, rather than sending in clear text). The server's certificate
 * is checked against the JDK's trust store and the host name. A login (AUTH PLAIN, or LOGIN when
 * that is all the server offers) only ever happens over TLS. The body goes base64-encoded as UTF-8,
 * so no line of it needs escaping; the subject is encoded (RFC 2047) when it is not ASCII. An error
 * names the step and the server's reply code, never what was sent.
 */
final class SmtpMail {
  private static final String CRLF = "\r\n";

  private final NotifyChannel.Email channel;
  private final Duration timeout;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  private SmtpMail(NotifyChannel.Email channel, Duration timeout) {
    this.channel = channel;
    this.timeout = timeout;
  }

  static void send(
      NotifyChannel.Email channel, String subject, String body, Instant date, Duration timeout)
      throws IOException {
    new SmtpMail(channel, timeout).send(subject, body, date);
  }

  private void send(String subject, String body, Instant date) throws IOException {
    String host = channel.smtp().getHost();
    int port =
        channel.smtp().getPort() > 0 ? channel.smtp().getPort() : channel.implicitTls() ? 465 : 587;
    socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      if (channel.implicitTls()) {
        tls(host, port);
      }
      streams();
      expect("greeting", 220);
      List<String> extensions = ehlo();
      if (!channel.implicitTls() && channel.starttls()) {
        if (!extensions.contains("STARTTLS")) {
          throw new IOException("the SMTP server offers no STARTTLS (starttls: true)");
        }
        command("STARTTLS", "STARTTLS", 220);
        if (in.available() > 0) {
          throw new IOException("the SMTP server sent data before the TLS handshake");
        }
        tls(host, port);
        streams();
        extensions = ehlo();
      }
      if (channel.username() != null) {
        login(extensions);
      }
      command("MAIL FROM:<" + channel.from() + ">", "MAIL FROM", 250);
      for (String to : channel.to()) {
        command("RCPT TO:<" + to + ">", "RCPT TO", 250, 251);
      }
      command("DATA", "DATA", 354);
      write(message(subject, body, date) + "." + CRLF);
      expect("the message", 250);
      write("QUIT" + CRLF);
    } finally {
      socket.close();
    }
  }

  private void tls(String host, int port) throws IOException {
    SSLSocket tls =
        (SSLSocket)
            ((SSLSocketFactory) SSLSocketFactory.getDefault())
                .createSocket(socket, host, port, true);
    SSLParameters parameters = tls.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the host
    tls.setSSLParameters(parameters);
    tls.setUseClientMode(true);
    tls.startHandshake();
    socket = tls;
  }

  private void streams() throws IOException {
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  private List<String> ehlo() throws IOException {
    String name;
    try {
      name = InetAddress.getLocalHost().getCanonicalHostName();
    } catch (IOException e) {
      name = "localhost";
    }
    if (!name.matches("[A-Za-z0-9.-]+")) {
      name = "localhost";
    }
    write("EHLO " + name + CRLF);
    List<String> lines = reply("EHLO", 250);
    List<String> extensions = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      extensions.add(lines.get(i).strip().toUpperCase(Locale.ROOT));
    }
    return extensions;
  }

  private void login(List<String> extensions) throws IOException {
    if (!(socket instanceof SSLSocket)) {
      throw new IOException("refusing to log in without TLS");
    }
    String auth =
        extensions.stream().filter(e -> e.startsWith("AUTH")).findFirst().orElse("AUTH PLAIN");
    List<String> mechanisms = List.of(auth.substring(4).strip().split("[\\s=]+"));
    String password = channel.password() == null ? "" : channel.password();
    if (mechanisms.contains("PLAIN") || !mechanisms.contains("LOGIN")) {
      String plain = "\0" + channel.username() + "\0" + password;
      command("AUTH PLAIN " + base64(plain), "AUTH", 235);
    } else {
      command("AUTH LOGIN", "AUTH", 334);
      command(base64(channel.username()), "AUTH", 334);
      command(base64(password), "AUTH", 235);
    }
  }

  private String message(String subject, String body, Instant date) {
    StringBuilder m = new StringBuilder();
    m.append("Date: ")
        .append(DateTimeFormatter.RFC_1123_DATE_TIME.format(date.atZone(ZoneOffset.UTC)))
        .append(CRLF);
    m.append("From: <").append(channel.from()).append('>').append(CRLF);
    m.append("To: ");
    for (int i = 0; i < channel.to().size(); i++) {
      m.append(i == 0 ? "" : ", ").append('<').append(channel.to().get(i)).append('>');
    }
    m.append(CRLF);
    m.append("Subject: ").append(encodedWord(subject)).append(CRLF);
    m.append("Message-ID: <").append(UUID.randomUUID()).append("@leasehold>").append(CRLF);
    m.append("Auto-Submitted: auto-generated").append(CRLF);
    m.append("MIME-Version: 1.0").append(CRLF);
    m.append("Content-Type: text/plain; charset=UTF-8").append(CRLF);
    m.append("Content-Transfer-Encoding: base64").append(CRLF);
    m.append(CRLF);
    String encoded =
        Base64.getMimeEncoder(76, CRLF.getBytes(StandardCharsets.US_ASCII))
            .encodeToString(body.getBytes(StandardCharsets.UTF_8));
    if (!encoded.isEmpty()) {
      m.append(encoded).append(CRLF);
    }
    return m.toString();
  }

  /** The subject as is when it is printable ASCII, else as an RFC 2047 encoded word. */
  private static String encodedWord(String subject) {
    String oneLine = subject.replaceAll("[\\r\\n]+", " ");
    if (oneLine.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
      return oneLine;
    }
    return "=?UTF-8?B?" + base64(oneLine) + "?=";
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends {@code line}; {@code step} names it in an error, which never quotes the line. */
  private void command(String line, String step, int... expected) throws IOException {
    write(line + CRLF);
    reply(step, expected);
  }

  private void expect(String step, int... expected) throws IOException {
    reply(step, expected);
  }

  private void write(String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** The lines of one reply (a code, then {@code -} on every line but the last), texts only. */
  private List<String> reply(String step, int... expected) throws IOException {
    List<String> texts = new ArrayList<>();
    while (true) {
      String line = readLine();
      if (line.length() < 3 || !line.substring(0, 3).chars().allMatch(Character::isDigit)) {
        throw new IOException("the SMTP server's answer to " + step + " is not SMTP");
      }
      int code = Integer.parseInt(line.substring(0, 3));
      texts.add(line.length() > 4 ? line.substring(4) : "");
      if (line.length() > 3 && line.charAt(3) == '-') {
        continue;
      }
      for (int ok : expected) {
        if (code == ok) {
          return texts;
        }
      }
      throw new IOException(
          "the SMTP server answered "
              + code
              + (step.equals("AUTH") ? "" : " " + texts.get(texts.size() - 1))
              + " to "
              + step);
    }
  }

  /** One line, read a byte at a time so that nothing past it is consumed before STARTTLS. */
  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        break;
      }
      if (b != '\r' && line.size() < 4096) {
        line.write(b);
      }
    }
    if (b == -1 && line.size() == 0) {
      throw new IOException("the SMTP server closed the connection");
    }
    return line.toString(StandardCharsets.UTF_8);
  }
}
