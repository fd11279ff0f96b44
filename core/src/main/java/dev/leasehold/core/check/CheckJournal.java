package dev.leasehold.core.check;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The checks' pings in the store's {@link Journal}: one stream per check ({@link
 * CheckNames#stream}), one entry per ping, its body {@link Ping#OK} or {@link Ping#FAIL}. The
 * daemon (for {@code POST /ping/{name}}), the CLI's {@code ping} and {@code status} all read and
 * write through here.
 */
public final class CheckJournal {
  /** Pings read per look: the newest few are all the rules need. */
  public static final int PINGS = 20;

  /** Pings younger than this are never pruned (nor are the newest {@link #PINGS}). */
  public static final Duration KEEP = Duration.ofDays(7);

  private final Journal journal;

  public CheckJournal(Journal journal) {
    this.journal = Objects.requireNonNull(journal, "journal");
  }

  /** Records a ping of {@code check} at {@code at}; durable once this returns. */
  public Ping ping(String check, boolean failed, Instant at) {
    JournalEntry entry = journal.append(CheckNames.stream(check), at, failed ? Ping.FAIL : Ping.OK);
    return Ping.of(entry);
  }

  /** The newest {@link #PINGS} pings of {@code check}, oldest first. */
  public List<Ping> pings(String check) {
    List<Ping> pings = new ArrayList<>();
    for (JournalEntry entry : journal.recent(CheckNames.stream(check), PINGS)) {
      pings.add(Ping.of(entry));
    }
    Collections.reverse(pings);
    return pings;
  }

  /** The check's state at {@code now}, read from the store. */
  public CheckStatus status(CheckDefinition check, Instant now) {
    return CheckRules.status(check, pings(check.name()), now);
  }

  /**
   * Deletes the pings of {@code check} older than {@link #KEEP} that are not among the newest
   * {@code pings} (as just read, oldest first).
   */
  int prune(String check, List<Ping> pings, Instant now) {
    if (pings.size() < PINGS) {
      return 0;
    }
    Instant before = now.minus(KEEP);
    Instant oldestKept = pings.get(0).at();
    return journal.prune(
        CheckNames.stream(check), before.isBefore(oldestKept) ? before : oldestKept);
  }
}
