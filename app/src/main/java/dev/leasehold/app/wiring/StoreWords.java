package dev.leasehold.app.wiring;

import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreSettings;

/**
 * How a store and its failures read in one line, the same on the CLI, in the log and on the status
 * page: no stack trace, no secret (URLs redacted, messages scrubbed).
 */
public final class StoreWords {
  private StoreWords() {}

  /** {@code h2 jdbc:h2:file:./data/quickstart}, passwords redacted. */
  public static String describe(StoreSettings settings) {
    String where =
        settings.url() != null
            ? Redaction.redactUrl(settings.url())
            : String.join(",", settings.urls().stream().map(Redaction::redactUrl).toList());
    return settings.type() + " " + where;
  }

  /**
   * One line about a failure, without a stack trace and without secrets: the messages of the
   * exception and up to two of its causes, ending at a {@link StoreUnreachableException} (which
   * names the store, its host and port and the plain cause).
   */
  public static String summary(Throwable e) {
    StringBuilder out = new StringBuilder();
    Throwable t = e;
    for (int depth = 0; t != null && depth < 3; depth++, t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      message = Redaction.scrub(message.lines().findFirst().orElse("").strip());
      if (out.indexOf(message) < 0) {
        out.append(out.length() == 0 ? "" : ": ").append(message);
      }
      if (t instanceof StoreUnreachableException) {
        // its message is complete: the driver's wording of the cause adds only its internals
        break;
      }
    }
    return out.toString();
  }
}
