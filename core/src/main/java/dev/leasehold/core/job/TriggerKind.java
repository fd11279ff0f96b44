package dev.leasehold.core.job;

/**
 * Why an execution happened: its schedule, by hand, after a run of its upstream job ({@code
 * after:}), or a backfill of a past firing ({@code leasehold backfill}).
 */
public enum TriggerKind {
  SCHEDULED,
  MANUAL,
  AFTER,
  BACKFILL;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
