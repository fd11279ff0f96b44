package dev.leasehold.app.config;

import dev.leasehold.core.store.Redaction;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the push and mail channels of a {@code notify:} section: {@code ntfy}, {@code telegram},
 * {@code email}. Every secret (ntfy token, bot token, SMTP password) is registered with {@link
 * Redaction} as it is read, so no log line, error or page shows it; errors never quote one.
 */
final class NotifyChannels {
  private static final Set<String> NTFY_PRIORITIES =
      Set.of("min", "low", "default", "high", "urgent", "max", "1", "2", "3", "4", "5");

  private NotifyChannels() {}

  static NotifyChannel.Ntfy ntfy(Section s) throws ConfigException {
    s.allow(ConfigKeys.NTFY);
    URI url = webUrl(s, ConfigKeys.NTFY_URL);
    String priority = s.text(ConfigKeys.NTFY_PRIORITY).map(String::strip).orElse(null);
    if (priority != null && !NTFY_PRIORITIES.contains(priority.toLowerCase(Locale.ROOT))) {
      throw s.error(ConfigKeys.NTFY_PRIORITY, "expected min, low, default, high, urgent or 1 to 5");
    }
    List<String> tags = s.textList(ConfigKeys.NTFY_TAGS).orElse(List.of());
    for (String tag : tags) {
      if (tag.isBlank() || tag.contains(",") || !tag.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
        throw s.error(ConfigKeys.NTFY_TAGS, "a tag is a word of printable ASCII without commas");
      }
    }
    String token = s.text(ConfigKeys.NTFY_TOKEN).filter(t -> !t.isBlank()).orElse(null);
    if (token != null) {
      token = token.strip();
      Redaction.register(token);
    }
    return new NotifyChannel.Ntfy(url, priority, tags, token);
  }

  static NotifyChannel.Telegram telegram(Section s) throws ConfigException {
    s.allow(ConfigKeys.TELEGRAM);
    String token = s.requiredText(ConfigKeys.TELEGRAM_BOT_TOKEN).strip();
    Redaction.register(token);
    if (!token.matches("[A-Za-z0-9:_-]+")) {
      throw s.error(ConfigKeys.TELEGRAM_BOT_TOKEN, "expected a bot token such as 123456:ABC-...");
    }
    String chat = s.requiredText(ConfigKeys.TELEGRAM_CHAT_ID).strip();
    if (chat.isEmpty()) {
      throw s.error(ConfigKeys.TELEGRAM_CHAT_ID, "must not be empty");
    }
    URI api =
        s.has(ConfigKeys.TELEGRAM_API_URL)
            ? webUrl(s, ConfigKeys.TELEGRAM_API_URL)
            : URI.create(ConfigKeys.TELEGRAM_API_URL.defaultText());
    return new NotifyChannel.Telegram(token, chat, api);
  }

  static NotifyChannel.Email email(Section s) throws ConfigException {
    s.allow(ConfigKeys.EMAIL);
    String text = s.requiredText(ConfigKeys.EMAIL_SMTP).strip();
    URI smtp;
    try {
      smtp = new URI(text);
    } catch (URISyntaxException e) {
      throw s.error(ConfigKeys.EMAIL_SMTP, "not a URL: " + e.getReason());
    }
    if (smtp.getScheme() == null
        || !Set.of("smtp", "smtps").contains(smtp.getScheme().toLowerCase(Locale.ROOT))
        || smtp.getHost() == null
        || smtp.getUserInfo() != null) {
      throw s.error(
          ConfigKeys.EMAIL_SMTP,
          "expected smtp://host[:port] or smtps://host[:port] (credentials go in username and"
              + " password-file)");
    }
    boolean starttls = true;
    if (s.has(ConfigKeys.EMAIL_STARTTLS)) {
      String given = s.requiredText(ConfigKeys.EMAIL_STARTTLS).strip().toLowerCase(Locale.ROOT);
      if (!given.equals("true") && !given.equals("false")) {
        throw s.error(ConfigKeys.EMAIL_STARTTLS, "expected true or false");
      }
      starttls = given.equals("true");
    }
    String username = s.text(ConfigKeys.EMAIL_USERNAME).filter(u -> !u.isBlank()).orElse(null);
    String password = null;
    if (s.has(ConfigKeys.EMAIL_PASSWORD_FILE)) {
      password = passwordFile(s);
      Redaction.register(password);
    }
    if (password != null && username == null) {
      throw s.error(ConfigKeys.EMAIL_USERNAME, "required with password-file");
    }
    boolean implicitTls = smtp.getScheme().equalsIgnoreCase("smtps");
    if (username != null && !implicitTls && !starttls) {
      throw s.error(
          ConfigKeys.EMAIL_STARTTLS, "a password is never sent in clear text: use TLS or no login");
    }
    String from = address(s, ConfigKeys.EMAIL_FROM, s.requiredText(ConfigKeys.EMAIL_FROM));
    List<String> to = s.textList(ConfigKeys.EMAIL_TO).orElse(List.of());
    if (to.isEmpty()) {
      throw s.error(ConfigKeys.EMAIL_TO, "expected a list of one or more addresses");
    }
    List<String> recipients = new java.util.ArrayList<>();
    for (String address : to) {
      recipients.add(address(s, ConfigKeys.EMAIL_TO, address));
    }
    return new NotifyChannel.Email(smtp, starttls, username, password, from, recipients);
  }

  private static String address(Section s, ConfigKeys.Key<?> key, String given)
      throws ConfigException {
    String address = given.strip();
    if (!address.matches("[^\\s<>@,;\"]+@[^\\s<>@,;\"]+")) {
      throw s.error(key, "expected an address such as family@example.org, got '" + address + "'");
    }
    return address;
  }

  private static String passwordFile(Section s) throws ConfigException {
    String file = s.requiredText(ConfigKeys.EMAIL_PASSWORD_FILE).strip();
    try {
      return Files.readString(Path.of(file)).strip();
    } catch (NoSuchFileException e) {
      throw s.error(ConfigKeys.EMAIL_PASSWORD_FILE, "no such file: " + file);
    } catch (IOException | RuntimeException e) {
      throw s.error(ConfigKeys.EMAIL_PASSWORD_FILE, "cannot read " + file);
    }
  }

  private static URI webUrl(Section s, ConfigKeys.Key<?> key) throws ConfigException {
    String text = s.requiredText(key).strip();
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw s.error(key, "not a URL: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getScheme() == null
        || !Set.of("http", "https").contains(uri.getScheme().toLowerCase(Locale.ROOT))
        || uri.getHost() == null) {
      throw s.error(key, "expected http://host[:port]/path or https://...");
    }
    Redaction.registerUrl(text);
    return uri;
  }
}
