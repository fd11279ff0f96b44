package dev.leasehold.app.config;

import java.net.URI;
import java.util.List;
import java.util.Objects;

/** Where a notification goes: one entry of a {@code notify:} section. */
public sealed interface NotifyChannel {

  /** A command, given the event as JSON on stdin and in {@code LEASEHOLD_EVENT}. */
  record Command(JobAction.Command command) implements NotifyChannel {}

  /**
   * An HTTP request; its body is the event as JSON, or {@code body} (a {@link MessageTemplate})
   * when given, its values JSON-escaped when the body is JSON.
   */
  record Http(JobAction.Http request, MessageTemplate body) implements NotifyChannel {}

  /** An ntfy topic: the message as body, job and event in {@code Title}. */
  record Ntfy(URI url, String priority, List<String> tags, String token) implements NotifyChannel {
    public Ntfy {
      tags = List.copyOf(tags);
    }

    @Override
    public String toString() {
      return "Ntfy[url=" + url + ", priority=" + priority + ", tags=" + tags + "]";
    }
  }

  /** A Telegram chat, through {@code POST {apiUrl}/bot{botToken}/sendMessage}. */
  record Telegram(String botToken, String chatId, URI apiUrl) implements NotifyChannel {
    public Telegram {
      Objects.requireNonNull(botToken);
    }

    @Override
    public String toString() {
      return "Telegram[chatId=" + chatId + ", apiUrl=" + apiUrl + "]";
    }
  }

  /**
   * E-mail through an SMTP server: {@code smtp://host:port} (STARTTLS when {@code starttls}) or
   * {@code smtps://host:port} (TLS from the start).
   */
  record Email(
      URI smtp, boolean starttls, String username, String password, String from, List<String> to)
      implements NotifyChannel {
    public Email {
      to = List.copyOf(to);
    }

    /** Whether the connection is TLS from the start. */
    public boolean implicitTls() {
      return "smtps".equalsIgnoreCase(smtp.getScheme());
    }

    @Override
    public String toString() {
      return "Email[smtp=" + smtp + ", from=" + from + ", to=" + to + "]";
    }
  }
}
