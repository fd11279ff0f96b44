package dev.leasehold.core.time;

/**
 * A monotonic clock in nanoseconds, for measuring how long a lease has gone without renewal. Wall
 * clocks jump (NTP, an operator, libfaketime); this one never goes back. Tests inject a virtual
 * one.
 */
@FunctionalInterface
public interface Ticker {
  long nanoTime();

  static Ticker system() {
    return System::nanoTime;
  }
}
