package dev.leasehold.core.check;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pure rules of a heartbeat check: which events its pings make, and its state, at a given
 * instant. No clock is read and nothing is stored: every replica that reads the same pings derives
 * the same events with the same identities, so sending each once is only a matter of who sends
 * ({@link CheckWatch}).
 *
 * <ul>
 *   <li>A ping's <em>deadline</em> is its time plus the period plus the grace (for a cron check:
 *       the next cron time after the ping, plus the grace; {@link CheckDefinition#deadlineAfter}).
 *   <li>{@code missed}, about a ping {@code p}: the next ping came after {@code p}'s deadline, or
 *       none came and the deadline is {@link #SETTLE} past. Due at the deadline; one per gap, so
 *       never repeated while the check stays down.
 *   <li>{@code failed}, about a fail ping: one per fail ping, at its time.
 *   <li>{@code recovered}, about the first good ping after a {@code missed} or a {@code failed}.
 *   <li>Before its first ping a check is {@code new}: nothing is overdue.
 * </ul>
 */
public final class CheckRules {
  /**
   * How long after a deadline a {@code missed} is decided: a ping recorded on a node whose clock
   * runs behind by less than this is still seen in time (the scheduler's skew allowance).
   */
  public static final Duration SETTLE = Duration.ofSeconds(2);

  private CheckRules() {}

  /**
   * The events of {@code check}'s {@code pings} (oldest first) that are due at {@code now}, oldest
   * first.
   */
  public static List<CheckEvent> events(CheckDefinition check, List<Ping> pings, Instant now) {
    List<CheckEvent> events = new ArrayList<>();
    boolean down = false;
    Ping previous = null;
    for (Ping ping : pings) {
      if (previous != null) {
        Optional<Instant> deadline = check.deadlineAfter(previous.at());
        if (deadline.isPresent() && ping.at().isAfter(deadline.get())) {
          events.add(CheckEvent.of(check.name(), CheckEvent.MISSED, previous, deadline.get()));
          down = true;
        }
      }
      if (ping.failed()) {
        events.add(CheckEvent.of(check.name(), CheckEvent.FAILED, ping, ping.at()));
        down = true;
      } else if (down) {
        events.add(CheckEvent.of(check.name(), CheckEvent.RECOVERED, ping, ping.at()));
        down = false;
      }
      previous = ping;
    }
    if (previous != null) {
      Optional<Instant> deadline = check.deadlineAfter(previous.at());
      if (deadline.isPresent() && !now.isBefore(deadline.get().plus(SETTLE))) {
        events.add(CheckEvent.of(check.name(), CheckEvent.MISSED, previous, deadline.get()));
      }
    }
    return events;
  }

  /** The check's state at {@code now}, given its pings (oldest first). */
  public static CheckStatus status(CheckDefinition check, List<Ping> pings, Instant now) {
    if (pings.isEmpty()) {
      return new CheckStatus(check.name(), check.describe(), CheckStatus.NEW, null, null);
    }
    Ping last = pings.get(pings.size() - 1);
    Instant deadline = check.deadlineAfter(last.at()).orElse(null);
    String state;
    if (deadline != null && now.isAfter(deadline)) {
      state = CheckStatus.MISSED;
    } else {
      state = last.failed() ? CheckStatus.FAILED : CheckStatus.UP;
    }
    return new CheckStatus(check.name(), check.describe(), state, last.at(), deadline);
  }

  /**
   * When a replica should look at the check again, given its pings (oldest first) as read at {@code
   * now}: when the newest ping's deadline is {@link #SETTLE} past, but no later than {@code idle}
   * from now, and {@code down} from now while the check is down (a recovery may be written by any
   * node, the CLI included).
   */
  public static Instant nextLook(
      CheckDefinition check, List<Ping> pings, Instant now, Duration idle, Duration down) {
    Instant latest = now.plus(idle);
    if (pings.isEmpty()) {
      return latest;
    }
    CheckStatus status = status(check, pings, now);
    Instant due = status.nextDeadline() == null ? latest : status.nextDeadline().plus(SETTLE);
    if (!status.state().equals(CheckStatus.UP)) {
      // down: look for the recovery; a missed not decided yet is decided at its own time
      latest = now.plus(down);
    }
    return due.isAfter(now) && due.isBefore(latest) ? due : latest;
  }
}
