package dev.leasehold.core.check;

import java.time.Instant;
import java.util.Objects;

/**
 * A check's event, derived from its pings alone, so that every replica derives the same ones.
 *
 * @param check the check's name
 * @param kind {@link #MISSED}, {@link #RECOVERED} or {@link #FAILED}
 * @param id the event's identity: kind and the id of the ping it is about ({@code missed}: the last
 *     ping before the gap; {@code recovered}: the first ping after it; {@code failed}: the fail
 *     ping)
 * @param at when the event happened: the deadline that passed, or the ping's time
 * @param lastPing the time of the ping it is about
 */
public record CheckEvent(String check, String kind, String id, Instant at, Instant lastPing) {
  public static final String MISSED = "missed";
  public static final String RECOVERED = "recovered";
  public static final String FAILED = "failed";

  public CheckEvent {
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(at, "at");
  }

  static CheckEvent of(String check, String kind, Ping ping, Instant at) {
    return new CheckEvent(check, kind, check + ":" + kind + ":" + ping.id(), at, ping.at());
  }
}
