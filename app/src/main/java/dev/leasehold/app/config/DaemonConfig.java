package dev.leasehold.app.config;

import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A validated configuration file, as plain values.
 *
 * @param file the file as the user named it (for messages)
 * @param node this replica's node id
 * @param shutdownGrace how long {@code run} waits for running jobs on SIGTERM before stopping them
 * @param store the store section
 * @param admin the admin HTTP endpoint, or {@code null} when off
 * @param log logging format and level
 * @param jobs the jobs, in file order
 */
public record DaemonConfig(
    String file,
    String node,
    Duration shutdownGrace,
    StoreSettings store,
    AdminConfig admin,
    LogConfig log,
    List<JobConfig> jobs) {

  public DaemonConfig {
    jobs = List.copyOf(jobs);
  }

  public Optional<JobConfig> job(String name) {
    return jobs.stream().filter(j -> j.name().equals(name)).findFirst();
  }

  public List<String> jobNames() {
    return jobs.stream().map(JobConfig::name).toList();
  }
}
