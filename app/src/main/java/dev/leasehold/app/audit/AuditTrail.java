package dev.leasehold.app.audit;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.store.StoreBackend;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit trail: who paused, resumed, triggered, reloaded, reset, forgot or backfilled what, and
 * with which result, kept in the store's {@link Journal} (stream {@value #STREAM}) so every replica
 * and every command line reads the same trail. Pruned with the execution history's {@code
 * store.history.keep} by the daemon's history prune.
 *
 * <p>Recording is one call, for any command or endpoint that changes something:
 *
 * <pre>{@code
 * AuditTrail.of(backend, clock).record(Actor.cli(config.node()), AuditEntry.BACKFILL, job,
 *     AuditEntry.OK, "3 firings requested");
 * }</pre>
 *
 * <p>Recording never fails the action it records: on a store without a journal nothing is written
 * (the {@code audit} command and {@code GET /audit} say the store keeps no trail), and a write that
 * fails is logged as a warning and dropped.
 */
public final class AuditTrail {
  private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);

  /** The journal stream of the trail. */
  public static final String STREAM = "audit";

  /** Most entries read at once ({@code audit --limit}, {@code GET /audit?limit=}). */
  public static final int MAX_LIMIT = 1000;

  /** Entries read when no limit is given. */
  public static final int DEFAULT_LIMIT = 20;

  private final Optional<Journal> journal;
  private final Clock clock;

  public AuditTrail(Optional<Journal> journal, Clock clock) {
    this.journal = journal;
    this.clock = clock;
  }

  /** The trail of an open store; one that keeps nothing when the store has no journal. */
  public static AuditTrail of(StoreBackend backend, Clock clock) {
    return new AuditTrail(backend.journal(), clock);
  }

  /** Whether the store keeps a trail (has a journal). */
  public boolean kept() {
    return journal.isPresent();
  }

  /**
   * Records an action now. Never throws.
   *
   * @param who who did it ({@link Actor#cli}, {@link Actor#http}, {@link Actor#signal})
   * @param action one of {@link AuditEntry}'s actions ({@link AuditEntry#PAUSE}, ...)
   * @param job the job, or {@code null}
   * @param result {@link AuditEntry#OK}, {@link AuditEntry#REFUSED} or {@link AuditEntry#FAILED}
   * @param detail one line of what was done or why not, or {@code null}; scrubbed of secrets
   */
  public void record(Actor who, String action, String job, String result, String detail) {
    try {
      record(new AuditEntry(clock.instant(), action, job, result, detail, who));
    } catch (RuntimeException e) {
      log.warn("audit entry of {} {} not written: {}", action, job, e.getMessage());
    }
  }

  /** Records {@code entry}. Never throws. */
  public void record(AuditEntry entry) {
    if (journal.isEmpty()) {
      log.debug("store keeps no audit trail: {} {} not recorded", entry.action(), entry.job());
      return;
    }
    try {
      journal.get().append(STREAM, entry.at(), entry.body());
    } catch (RuntimeException e) {
      log.warn("audit entry of {} {} not written: {}", entry.action(), entry.job(), e.getMessage());
    }
  }

  /**
   * The newest entries, newest first, at most {@code limit}; empty when the store keeps no trail.
   * Store errors are thrown.
   */
  public Optional<List<AuditEntry>> recent(int limit) {
    if (journal.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        journal.get().recent(STREAM, limit).stream()
            .map(AuditEntry::parse)
            .flatMap(Optional::stream)
            .toList());
  }

  /** Deletes the entries older than {@code before}; 0 without a trail. */
  public int prune(Instant before) {
    return journal.map(j -> j.prune(STREAM, before)).orElse(0);
  }

  /** What a reader of the trail says on a store without one. */
  public static String unsupported(String storeType) {
    return "store type "
        + storeType
        + " does not keep an audit trail; nothing to show (see docs/operations.md)";
  }
}
