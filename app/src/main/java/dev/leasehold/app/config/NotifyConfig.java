package dev.leasehold.app.config;

import java.util.List;
import java.util.Set;

/**
 * A job's notifier ({@code notify:}): where an event goes and which events are sent.
 *
 * @param action a {@link JobAction.Command} (the event as JSON on stdin and in {@code
 *     LEASEHOLD_EVENT}) or a {@link JobAction.Http} (the event as the JSON body)
 * @param on the events sent: {@link #EVENTS}
 */
public record NotifyConfig(JobAction action, Set<String> on) {
  /** Every event a notifier can be sent, in the order the docs list them. */
  public static final List<String> EVENTS = List.of("failed", "missed", "recovered", "succeeded");

  /** The events sent when {@code on} is not given. */
  public static final Set<String> DEFAULT_ON = Set.of("failed", "missed", "recovered");

  public NotifyConfig {
    on = Set.copyOf(on);
  }
}
