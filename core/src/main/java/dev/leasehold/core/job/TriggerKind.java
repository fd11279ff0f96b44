package dev.leasehold.core.job;

/** Why an execution happened. */
public enum TriggerKind {
  SCHEDULED,
  MANUAL;

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
