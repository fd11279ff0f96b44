package dev.leasehold.app.testing;

import java.time.Instant;
import java.util.function.Supplier;

/**
 * A fixture that breaks the rule that app code reads "now" from an injected clock ({@code
 * ArchitectureRulesCanFailTest}); never used.
 */
public final class ReadsTheWallClock {
  private ReadsTheWallClock() {}

  static Instant instant() {
    return Instant.now();
  }

  static long millis() {
    return System.currentTimeMillis();
  }

  static Supplier<Instant> reference() {
    return Instant::now;
  }
}
