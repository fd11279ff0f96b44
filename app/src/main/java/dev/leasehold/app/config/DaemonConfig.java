package dev.leasehold.app.config;

import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A validated configuration file, as plain values.
 *
 * @param file the file as the user named it (for messages)
 * @param node this replica's node id
 * @param shutdownGrace how long {@code run} waits for running jobs on SIGTERM before stopping them
 * @param store the store section
 * @param history what the execution history keeps ({@code store.history})
 * @param admin the admin HTTP endpoint, or {@code null} when off
 * @param log logging format and level
 * @param jobs the jobs, in file order
 * @param groups the concurrency groups: name to max-concurrent
 * @param checks the heartbeat checks, in file order
 */
public record DaemonConfig(
    String file,
    String node,
    String namespace,
    Duration shutdownGrace,
    StoreSettings store,
    HistoryRetention history,
    AdminConfig admin,
    LogConfig log,
    List<JobConfig> jobs,
    Map<String, Integer> groups,
    List<CheckConfig> checks) {

  public DaemonConfig {
    jobs = List.copyOf(jobs);
    groups = Map.copyOf(groups);
    checks = List.copyOf(checks);
  }

  /** A configuration without heartbeat checks. */
  public DaemonConfig(
      String file,
      String node,
      String namespace,
      Duration shutdownGrace,
      StoreSettings store,
      HistoryRetention history,
      AdminConfig admin,
      LogConfig log,
      List<JobConfig> jobs,
      Map<String, Integer> groups) {
    this(file, node, namespace, shutdownGrace, store, history, admin, log, jobs, groups, List.of());
  }

  /** A configuration without concurrency groups. */
  public DaemonConfig(
      String file,
      String node,
      Duration shutdownGrace,
      StoreSettings store,
      HistoryRetention history,
      AdminConfig admin,
      LogConfig log,
      List<JobConfig> jobs) {
    this(file, node, null, shutdownGrace, store, history, admin, log, jobs, Map.of());
  }

  public Optional<JobConfig> job(String name) {
    return jobs.stream().filter(j -> j.name().equals(name)).findFirst();
  }

  public Optional<CheckConfig> check(String name) {
    return checks.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  public List<String> jobNames() {
    return jobs.stream().map(JobConfig::name).toList();
  }
}
