package dev.leasehold.core.schedule;

import dev.leasehold.core.job.Outcome;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A job that has no firings of its own: it runs once for each firing of {@code upstream} whose
 * final run (after its retries) ended as {@code on} says, under that firing's instant. The hand-off
 * is a request in the store that the scheduler writes before the upstream's final history row (see
 * {@code dev.leasehold.core.scheduler.Chains}).
 *
 * @param upstream the job whose runs this one follows
 * @param on which final outcomes of the upstream start this job (empty: {@code succeeded})
 */
public record AfterSchedule(String upstream, Set<On> on) implements Schedule {

  /** Which final outcomes of the upstream's runs a child follows. */
  public enum On {
    /** Only {@code succeeded} (the default). */
    SUCCEEDED,
    /**
     * Every final run that did not succeed: {@code failed}, {@code timed-out}, {@code lease-lost}.
     */
    FAILED,
    /** Every final run. */
    ANY;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The value {@code label} names. */
    public static On of(String label) {
      return valueOf(label.toUpperCase(Locale.ROOT));
    }

    /** Whether a final run that ended {@code outcome} starts the child. */
    public boolean matches(Outcome outcome) {
      boolean ran =
          outcome == Outcome.SUCCEEDED
              || outcome == Outcome.FAILED
              || outcome == Outcome.TIMED_OUT
              || outcome == Outcome.LEASE_LOST;
      return switch (this) {
        case SUCCEEDED -> outcome == Outcome.SUCCEEDED;
        case FAILED -> ran && outcome != Outcome.SUCCEEDED;
        case ANY -> ran;
      };
    }
  }

  public AfterSchedule {
    Objects.requireNonNull(upstream, "upstream");
    on = on.isEmpty() ? Set.of(On.SUCCEEDED) : Set.copyOf(on);
  }

  /** After each succeeded run of {@code upstream}. */
  public AfterSchedule(String upstream) {
    this(upstream, Set.of(On.SUCCEEDED));
  }

  /** Whether a final run of the upstream that ended {@code outcome} starts this job. */
  public boolean follows(Outcome outcome) {
    return on.stream().anyMatch(o -> o.matches(outcome));
  }

  /** Never: the job runs only after its upstream. */
  @Override
  public Optional<Instant> nextAfter(Instant instant) {
    return Optional.empty();
  }

  @Override
  public Optional<Instant> latestIn(Instant from, Instant to) {
    return Optional.empty();
  }

  @Override
  public String describe() {
    if (on.equals(Set.of(On.SUCCEEDED))) {
      return "after " + upstream;
    }
    return "after "
        + upstream
        + " on "
        + String.join(",", on.stream().sorted().map(On::label).toList());
  }
}
