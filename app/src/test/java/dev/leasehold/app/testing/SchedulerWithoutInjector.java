package dev.leasehold.app.testing;

import dev.leasehold.core.scheduler.Scheduler;

/**
 * A fixture that breaks the rule that only the daemon's Guice module makes the scheduler ({@code
 * ArchitectureRulesCanFailTest}); never used.
 */
public final class SchedulerWithoutInjector {
  private SchedulerWithoutInjector() {}

  static Scheduler.Builder handMade() {
    return Scheduler.builder();
  }
}
