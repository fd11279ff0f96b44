package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries of failed runs ({@link RetryPolicy}), claimed once cluster-wide on any replica.
 *
 * <p>A retry of firing F is claimed as a firing of its own, at the instant {@link
 * FiringRules#afterRun} computes from the failed run's history row (its end plus the backoff). The
 * replica that ran the failed attempt knows the row at once; every other replica learns it from the
 * shared history: a replica whose claim of F (or of a retry of F) was refused follows F, reading
 * F's newest row every {@link #pollPause} until a row of the claimed attempt is there. So all of
 * them compute the same instant and claim it; the store's watermark lets one claim win, with a new
 * fence, and the others follow F again. The retry happens even when the replica that failed is
 * gone. Following ends with the firing's last row, or when the job's next scheduled firing is due.
 *
 * <p>Every method but {@link #plan} is an event of the {@link SlotOwner}.
 */
final class Retries {
  private static final Logger log = LoggerFactory.getLogger(Retries.class);

  /** Bounds of the pause between two reads of a followed firing's history. */
  static final Duration MIN_POLL = Duration.ofMillis(100);

  static final Duration MAX_POLL = Duration.ofSeconds(5);

  /** Retry instants one job keeps; more drop the oldest. */
  static final int MAX_PENDING = 16;

  /** Rows read per poll: the followed firing's newest rows are among the job's newest. */
  static final int ROWS = 20;

  /** A run of a firing: which firing, which attempt. */
  record Run(Instant firing, int attempt) {}

  private final Slots slots;
  private final FiringRules rules;
  private final SchedulerParts parts;
  private final History history;
  private final SlotMachine.Feed feed;
  private final SlotOwner owner;
  private final Map<JobSlot, TreeMap<Instant, Run>> pending = new HashMap<>();
  private final Map<JobSlot, Run> following = new HashMap<>();
  private final Set<JobSlot> polling = new HashSet<>();

  Retries(
      Slots slots,
      FiringRules rules,
      SchedulerParts parts,
      History history,
      SlotMachine.Feed feed) {
    this.slots = slots;
    this.rules = rules;
    this.parts = parts;
    this.history = history;
    this.feed = feed;
    this.owner = slots.owner();
  }

  /** Which firing and attempt a claim of {@code claimed} runs: a retry's, else attempt 1. */
  Run runOf(JobSlot slot, Instant claimed) {
    owner.check();
    TreeMap<Instant, Run> retries = pending.get(slot);
    Run run = retries == null ? null : retries.remove(claimed);
    return run != null ? run : new Run(claimed, 1);
  }

  /** Whether {@code claimed} is the instant of a retry this node waits to claim. */
  boolean isRetry(JobSlot slot, Instant claimed) {
    owner.check();
    TreeMap<Instant, Run> retries = pending.get(slot);
    return retries != null && retries.containsKey(claimed);
  }

  /** Any thread: what follows the run that ended in {@code row}. */
  FiringRules.AfterRun plan(JobDefinition job, ExecutionRecord row) {
    return rules.afterRun(job.policy().retry(), job.schedule(), row);
  }

  /** Event: this node's run ended in {@code row}, already recorded. */
  void ran(JobSlot slot, ExecutionRecord row, FiringRules.AfterRun after) {
    if (row.trigger() != TriggerKind.SCHEDULED) {
      return; // a manual run is never retried and follows no firing
    }
    Run followed = following.get(slot);
    if (followed != null && !followed.firing().isAfter(row.fireTime())) {
      following.remove(slot);
    }
    if (after.dropped() != null) {
      log.warn(
          "retry dropped job={} firing={} attempt={}: {}; this run is the firing's last",
          slot.job.name(),
          row.fireTime(),
          row.attempt() + 1,
          after.dropped());
    }
    apply(slot, row, after);
  }

  /**
   * Event: a claim of {@code claimed} was refused as already run: another replica runs that firing
   * (or that retry), so this node follows its outcome in the history.
   */
  void refused(JobSlot slot, Instant claimed) {
    if (!slot.job.policy().retry().retries()) {
      return;
    }
    follow(slot, runOf(slot, claimed));
  }

  /** Event: a retry claim this node will not make (its lease was held); it is forgotten. */
  void forget(JobSlot slot, Instant claimed) {
    Run run = runOf(slot, claimed);
    log.info(
        "retry not run here job={} firing={} attempt={}: its lease was held",
        slot.job.name(),
        run.firing(),
        run.attempt());
  }

  private void apply(JobSlot slot, ExecutionRecord row, FiringRules.AfterRun after) {
    if (!after.retrying() || !slots.accepting()) {
      return;
    }
    TreeMap<Instant, Run> retries = pending.computeIfAbsent(slot, s -> new TreeMap<>());
    Instant at = after.retryAt();
    if (retries.putIfAbsent(at, new Run(row.fireTime(), row.attempt() + 1)) != null) {
      return;
    }
    if (retries.size() > MAX_PENDING) {
      retries.pollFirstEntry();
    }
    log.info(
        "retry job={} firing={} attempt={} at {}",
        slot.job.name(),
        row.fireTime(),
        row.attempt() + 1,
        at);
    Duration wait = Duration.between(parts.clock().instant(), at);
    owner.later(
        wait.isNegative() ? Duration.ZERO : wait,
        () -> {
          if (slots.accepting() && isRetry(slot, at)) {
            feed.apply(slot, new SlotMachine.Due(at));
          }
        });
  }

  private void follow(JobSlot slot, Run run) {
    if (!slots.accepting()) {
      return;
    }
    Run current = following.get(slot);
    if (current != null
        && (current.firing().isAfter(run.firing())
            || current.firing().equals(run.firing()) && current.attempt() >= run.attempt())) {
      return;
    }
    following.put(slot, run);
    if (polling.add(slot)) {
      owner.later(pollPause(slot.job), () -> poll(slot));
    }
  }

  /** Half the first backoff, within {@link #MIN_POLL} and {@link #MAX_POLL}. */
  static Duration pollPause(JobDefinition job) {
    Duration half = job.policy().retry().backoff().dividedBy(2);
    return half.compareTo(MIN_POLL) < 0 ? MIN_POLL : half.compareTo(MAX_POLL) > 0 ? MAX_POLL : half;
  }

  /** Timer event: reads the followed firing's rows, unless the next firing took over. */
  private void poll(JobSlot slot) {
    Run run = following.get(slot);
    if (!slots.accepting() || run == null || nextDue(slot.job, run.firing())) {
      following.remove(slot);
      polling.remove(slot);
      return;
    }
    String job = slot.job.name();
    parts
        .workers()
        .execute(
            () -> {
              List<ExecutionRecord> rows;
              try {
                rows = history.rows(job, ROWS);
              } catch (RuntimeException e) {
                log.debug("reading the history of job={} failed: {}", job, e.toString());
                rows = List.of(); // read again at the next poll
              }
              List<ExecutionRecord> read = rows;
              owner.execute(() -> read(slot, read));
            });
  }

  /** Event: the newest rows of the job; the followed run's row, if there, decides what follows. */
  private void read(JobSlot slot, List<ExecutionRecord> rows) {
    Run run = following.get(slot);
    if (!slots.accepting() || run == null) {
      following.remove(slot);
      polling.remove(slot);
      return;
    }
    Optional<ExecutionRecord> row =
        rows.stream()
            .filter(r -> r.trigger() == TriggerKind.SCHEDULED)
            .filter(r -> r.fireTime().equals(run.firing()) && r.attempt() >= run.attempt())
            .max(Comparator.comparingInt(ExecutionRecord::attempt));
    if (row.isEmpty()) {
      owner.later(pollPause(slot.job), () -> poll(slot));
      return;
    }
    following.remove(slot);
    polling.remove(slot);
    FiringRules.AfterRun after = plan(slot.job, row.get());
    if (after.dropped() != null) {
      log.debug("retry of job={} firing={} dropped: {}", job(slot), run.firing(), after.dropped());
    }
    apply(slot, row.get(), after);
  }

  private boolean nextDue(JobDefinition job, Instant firing) {
    Instant now = parts.clock().instant();
    return job.schedule().nextAfter(firing).map(n -> !now.isBefore(n)).orElse(false);
  }

  private static String job(JobSlot slot) {
    return slot.job.name();
  }
}
