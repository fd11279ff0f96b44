package dev.leasehold.app.config;

import dev.leasehold.core.check.CheckDefinition;
import java.util.Objects;

/**
 * A heartbeat check ({@code checks:}).
 *
 * @param definition its name, period or cron, and grace
 * @param pingKey the secret a ping must carry; never shown ({@link #toString})
 * @param notifier where its events go, or {@code null} for nowhere
 */
public record CheckConfig(CheckDefinition definition, String pingKey, NotifyConfig notifier) {
  /** The events a check makes, in the order the docs list them. */
  public static final java.util.List<String> EVENTS =
      java.util.List.of("failed", "missed", "recovered");

  /** The shortest ping key accepted. */
  public static final int MIN_KEY_LENGTH = 16;

  public CheckConfig {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(pingKey, "pingKey");
  }

  public String name() {
    return definition.name();
  }

  @Override
  public String toString() {
    return "CheckConfig[" + definition + ", pingKey=***, notifier=" + notifier + "]";
  }
}
