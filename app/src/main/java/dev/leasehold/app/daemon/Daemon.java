package dev.leasehold.app.daemon;

import dev.leasehold.app.admin.AdminServer;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.app.runner.JobRunners;
import dev.leasehold.app.runner.TaggedJobRunner;
import dev.leasehold.app.wiring.JobDefinitions;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.scheduler.SchedulerListener;
import dev.leasehold.core.store.StoreBackend;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running daemon ({@code run}): opens the store (retrying while it is down), starts the
 * scheduler and the optional admin endpoint, and on shutdown stops claiming, gives running jobs the
 * shutdown grace, stops what is left, releases leases and closes the store.
 */
public final class Daemon {
  private static final Logger log = LoggerFactory.getLogger(Daemon.class);

  private final PreparedConfig prepared;
  private final CountDownLatch shutdownRequested = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Scheduler scheduler;
  private volatile AdminServer admin;

  public Daemon(PreparedConfig prepared) {
    this.prepared = prepared;
  }

  /**
   * Runs until {@link #shutdown()} is called; returns the exit code.
   *
   * @throws IOException when the admin endpoint cannot listen
   */
  public int run() throws IOException {
    DaemonConfig config = prepared.config();
    try {
      log.info(
          "starting: node {}, {} jobs, opening store {}",
          config.node(),
          config.jobs().size(),
          StoreOpener.describe(config.store()));
      Optional<StoreBackend> opened =
          StoreOpener.openWithRetry(
              prepared.storeFactory(), config.store(), config.node(), shutdownRequested);
      if (opened.isEmpty()) {
        log.info("shutdown requested before the store answered");
        return 0;
      }
      try (StoreBackend backend = opened.get()) {
        StoreHealth health = new StoreHealth(backend, System::nanoTime);
        DaemonMetrics metrics =
            config.admin() == null ? null : new DaemonMetrics(health, config.jobs());
        UnaryOperator<JobRunner> decorate =
            metrics == null
                ? TaggedJobRunner::tag
                : runner -> TaggedJobRunner.tag(metrics.instrument(runner));
        List<JobDefinition> jobs =
            JobDefinitions.from(config, new JobRunners(HttpJobRunner::newClient), decorate);
        scheduler =
            Scheduler.builder()
                .node(config.node())
                .store(backend.leaseStore())
                .executionLog(backend.executionLog())
                .jobs(jobs)
                .clock(Clock.systemUTC())
                .listener(metrics == null ? SchedulerListener.NONE : metrics)
                .build();
        if (metrics != null) {
          admin =
              AdminServer.start(
                  config, scheduler, backend.leaseStore(), health, metrics, backend.executionLog());
        }
        scheduler.start();
        log.info(
            "started: {} jobs, store {}, node {} in {} ms",
            jobs.size(),
            StoreOpener.describe(config.store()),
            config.node(),
            ManagementFactory.getRuntimeMXBean().getUptime());
        awaitShutdown();
        log.info(
            "stopping: waiting up to {} ms for running jobs", config.shutdownGrace().toMillis());
        if (admin != null) {
          admin.close();
        }
        scheduler.stop(config.shutdownGrace());
      }
      log.info("stopped");
      return 0;
    } finally {
      stopped.countDown();
    }
  }

  /** Asks {@link #run()} to stop and waits until it has (SIGTERM/SIGINT end here). */
  public void shutdown() {
    shutdownRequested.countDown();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The scheduler once started (for tests). */
  public Optional<Scheduler> scheduler() {
    return Optional.ofNullable(scheduler);
  }

  /** The admin endpoint's port once listening (for tests). */
  public Optional<Integer> adminPort() {
    return Optional.ofNullable(admin).map(AdminServer::port);
  }

  private void awaitShutdown() {
    while (true) {
      try {
        shutdownRequested.await();
        return;
      } catch (InterruptedException e) {
        // only a shutdown request ends the daemon
      }
    }
  }
}
