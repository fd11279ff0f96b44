package dev.leasehold.core.check;

import dev.leasehold.core.lease.JournalEntry;
import java.time.Instant;
import java.util.Objects;

/**
 * One ping of a check, as its journal entry keeps it.
 *
 * @param id the journal entry's id: the identity of the events this ping makes
 * @param at when it was recorded, on the recording node's clock
 * @param failed whether it reported a failure ({@code /fail})
 */
public record Ping(String id, Instant at, boolean failed) {
  /** The body of a ping that says the job ran. */
  public static final String OK = "ok";

  /** The body of a ping that says the job failed. */
  public static final String FAIL = "fail";

  public Ping {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(at, "at");
  }

  /** The ping an entry of a check's stream holds (a body other than {@link #FAIL} is a ping). */
  public static Ping of(JournalEntry entry) {
    return new Ping(entry.id(), entry.at(), entry.body().strip().startsWith(FAIL));
  }
}
