package dev.leasehold.app.daemon;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import dev.leasehold.app.admin.AdminServer;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running daemon ({@code run}): opens the store (retrying while it is down), has a Guice
 * injector assemble the rest from it ({@link DaemonModule}), starts the scheduler and the optional
 * admin endpoint, and on shutdown stops claiming, gives running jobs the shutdown grace, stops what
 * is left, releases leases and closes the store.
 */
public final class Daemon {
  private static final Logger log = LoggerFactory.getLogger(Daemon.class);
  private static final Key<Optional<DaemonMetrics>> METRICS =
      Key.get(new TypeLiteral<Optional<DaemonMetrics>>() {});
  private static final Key<List<JobDefinition>> JOBS =
      Key.get(new TypeLiteral<List<JobDefinition>>() {});

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
      StartupTrace.mark("store opened and checked");
      try (StoreBackend backend = opened.get()) {
        Injector injector =
            Guice.createInjector(Stage.PRODUCTION, new DaemonModule(prepared, backend));
        StartupTrace.mark("injector built");
        Optional<DaemonMetrics> metrics = injector.getInstance(METRICS);
        List<JobDefinition> jobs = injector.getInstance(JOBS);
        scheduler = injector.getInstance(Scheduler.class);
        if (metrics.isPresent()) {
          admin =
              AdminServer.start(
                  config,
                  scheduler,
                  backend.leaseStore(),
                  injector.getInstance(StoreHealth.class),
                  metrics.get(),
                  backend.executionLog());
        }
        StartupTrace.mark("scheduler built");
        scheduler.start();
        StartupTrace.mark("scheduler started");
        log.info(
            "started: {} jobs, store {}, node {} in {} ms",
            jobs.size(),
            StoreOpener.describe(config.store()),
            config.node(),
            ManagementFactory.getRuntimeMXBean().getUptime());
        awaitShutdown();
        log.info(
            "stopping: waiting up to {} for running jobs", Durations.human(config.shutdownGrace()));
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
