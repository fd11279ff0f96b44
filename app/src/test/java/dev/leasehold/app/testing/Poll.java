package dev.leasehold.app.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a real-world condition (a process, a server) with a generous limit; no timing asserts.
 */
public final class Poll {
  private Poll() {}

  public static void until(String what, Duration limit, BooleanSupplier condition) {
    long end = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("gave up waiting after " + limit + " for: " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for: " + what);
      }
    }
  }
}
