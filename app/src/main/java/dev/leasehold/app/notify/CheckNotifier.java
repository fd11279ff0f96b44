package dev.leasehold.app.notify;

import dev.leasehold.app.config.CheckConfig;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.core.check.CheckEvent;
import dev.leasehold.core.check.CheckNotices;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The heartbeat checks' notifications: each check's {@code notify:} channels, as a job's ({@link
 * Notifier}). Which replica sends an event, and when, is the core's {@code CheckWatch}.
 */
public final class CheckNotifier implements CheckNotices {
  private final Notifier notifier;
  private final String node;

  public CheckNotifier(List<CheckConfig> checks, String node, Clock clock) {
    this.notifier = new Notifier(byCheck(checks), null, HttpJobRunner.newClient(), clock);
    this.node = node;
  }

  /** A reload's checks, for the events sent from now on. */
  public void checks(List<CheckConfig> checks) {
    notifier.jobs(byCheck(checks));
  }

  @Override
  public void deliver(CheckEvent event) {
    notifier.deliverCheck(event, node);
  }

  private static Map<String, NotifyConfig> byCheck(List<CheckConfig> checks) {
    Map<String, NotifyConfig> by = new HashMap<>();
    for (CheckConfig check : checks) {
      if (check.notifier() != null) {
        by.put(check.name(), check.notifier());
      }
    }
    return by;
  }
}
