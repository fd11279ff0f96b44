package dev.leasehold.core.check;

/**
 * Where the checks' events go (the app's notifier). The {@link CheckWatch} decides which replica
 * delivers an event, and when; an implementation only formats and sends.
 */
public interface CheckNotices {
  /**
   * Sends {@code event} to the check's notifier when its {@code on} lists the event, trying again a
   * few times; returns once it was sent, given up or not wanted (each logged). Called on a worker,
   * while this replica holds the check's desk lease; it may block for as long as its attempts take.
   */
  void deliver(CheckEvent event);

  /** Sends nothing. */
  CheckNotices NONE = event -> {};
}
