package dev.leasehold.app.config;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;

/**
 * A job's notifier ({@code notify:}): where an event goes and which events are sent.
 *
 * @param channels where each event goes, each once: {@link NotifyChannel}
 * @param on the events sent: {@link #EVENTS}
 * @param message the text for ntfy, Telegram and e-mail, or {@code null} for the default one
 * @param zone the job's zone, in which the default message shows the firing
 */
public record NotifyConfig(
    List<NotifyChannel> channels, Set<String> on, MessageTemplate message, ZoneId zone) {
  /** Every event a notifier can be sent, in the order the docs list them. */
  public static final List<String> EVENTS =
      List.of("failed", "missed", "recovered", "succeeded", "started");

  /** The events sent when {@code on} is not given. */
  public static final Set<String> DEFAULT_ON = Set.of("failed", "missed", "recovered");

  public NotifyConfig {
    channels = List.copyOf(channels);
    on = Set.copyOf(on);
    zone = zone == null ? ZoneOffset.UTC : zone;
  }

  /** One command or HTTP notifier, as before channels: the event as JSON. */
  public NotifyConfig(JobAction action, Set<String> on) {
    this(List.of(channelOf(action)), on, null, null);
  }

  /** This notifier for a job in {@code zone}. */
  public NotifyConfig inZone(ZoneId zone) {
    return new NotifyConfig(channels, on, message, zone);
  }

  private static NotifyChannel channelOf(JobAction action) {
    if (action instanceof JobAction.Command c) {
      return new NotifyChannel.Command(c);
    }
    if (action instanceof JobAction.Http h) {
      return new NotifyChannel.Http(h, null);
    }
    throw new IllegalArgumentException("not a notifier: " + action);
  }
}
