package dev.leasehold.app.runner;

import dev.leasehold.core.store.Redaction;
import java.util.Map;

/**
 * What a job's or a notifier's process inherits of the daemon's environment: everything but the
 * variables whose value the configuration uses as a secret (the admin and read tokens, the store
 * password, a notifier's or HTTP job's credentials: whatever {@link Redaction} was told), so a
 * script that prints {@code env} or sends it to a crash reporter cannot leak them. A job's own
 * {@code env:} is added afterwards: it may pass one explicitly.
 */
public final class InheritedEnvironment {
  private InheritedEnvironment() {}

  /** Removes from {@code env} (a process builder's environment) every secret-valued variable. */
  public static void withholdSecrets(Map<String, String> env) {
    env.values().removeIf(Redaction::isSecret);
  }
}
