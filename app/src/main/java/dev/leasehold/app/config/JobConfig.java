package dev.leasehold.app.config;

import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.Overlap;
import dev.leasehold.core.scheduler.RetryPolicy;
import java.time.Duration;

/**
 * One job of the configuration file.
 *
 * @param name the job (and lease) name
 * @param schedule when it fires (with {@code jitter}, the jittered firings)
 * @param ttl lease time to live
 * @param renewEvery how often the watchdog renews the lease, or {@code null} for ttl/3
 * @param timeout how long one execution may run, or {@code null} for no limit
 * @param misfireGrace how late a missed firing may still run, or {@code null} for the default
 * @param action what it runs
 * @param notifier where its failures, misses and recoveries are sent, or {@code null} for nowhere
 * @param jitter the bound of each firing's deterministic start offset, or {@code null} for none
 * @param group the concurrency group it belongs to, or {@code null} for none
 * @param retry how often a failed or timed-out run is run again
 * @param overlap what a firing due while the job runs does
 */
public record JobConfig(
    String name,
    Schedule schedule,
    Duration ttl,
    Duration renewEvery,
    Duration timeout,
    Duration misfireGrace,
    JobAction action,
    NotifyConfig notifier,
    Duration jitter,
    String group,
    RetryPolicy retry,
    Overlap overlap) {

  public JobConfig {
    if (retry == null) {
      retry = RetryPolicy.NONE;
    }
    if (overlap == null) {
      overlap = Overlap.SKIP;
    }
  }

  /** A job whose overlapping firings are skipped. */
  public JobConfig(
      String name,
      Schedule schedule,
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      JobAction action,
      NotifyConfig notifier,
      Duration jitter,
      String group,
      RetryPolicy retry) {
    this(
        name,
        schedule,
        ttl,
        renewEvery,
        timeout,
        misfireGrace,
        action,
        notifier,
        jitter,
        group,
        retry,
        null);
  }

  /** A job without retries. */
  public JobConfig(
      String name,
      Schedule schedule,
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      JobAction action,
      NotifyConfig notifier,
      Duration jitter,
      String group) {
    this(
        name,
        schedule,
        ttl,
        renewEvery,
        timeout,
        misfireGrace,
        action,
        notifier,
        jitter,
        group,
        null);
  }

  /** A job without jitter or group. */
  public JobConfig(
      String name,
      Schedule schedule,
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      JobAction action,
      NotifyConfig notifier,
      RetryPolicy retry) {
    this(
        name,
        schedule,
        ttl,
        renewEvery,
        timeout,
        misfireGrace,
        action,
        notifier,
        null,
        null,
        retry);
  }

  /** A job without jitter, group or retries. */
  public JobConfig(
      String name,
      Schedule schedule,
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      JobAction action,
      NotifyConfig notifier) {
    this(
        name, schedule, ttl, renewEvery, timeout, misfireGrace, action, notifier, null, null, null);
  }

  /** A job without a notifier. */
  public JobConfig(
      String name,
      Schedule schedule,
      Duration ttl,
      Duration renewEvery,
      Duration timeout,
      Duration misfireGrace,
      JobAction action) {
    this(name, schedule, ttl, renewEvery, timeout, misfireGrace, action, null);
  }
}
