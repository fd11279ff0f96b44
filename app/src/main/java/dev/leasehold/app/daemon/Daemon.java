package dev.leasehold.app.daemon;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import dev.leasehold.app.admin.AdminServer;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.NodeMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.audit.Actor;
import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.audit.AuditTrail;
import dev.leasehold.app.config.BuildInfo;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.reload.ConfigReload;
import dev.leasehold.app.wiring.DigestKey;
import dev.leasehold.app.wiring.JobDigest;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.app.wiring.StoreOpener;
import dev.leasehold.app.wiring.StoreWords;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.HistoryPruner;
import dev.leasehold.core.store.NodePublisher;
import dev.leasehold.core.store.StoreBackend;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
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
  private final ConfigReload.Source source;
  private final Clock clock;
  private final CountDownLatch shutdownRequested = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Scheduler scheduler;
  private volatile AdminServer admin;
  private volatile HistoryPruner pruner;
  private volatile NodePublisher publisher;
  private volatile DaemonChecks checks;
  private volatile ConfigReload reloader;
  private volatile AuditTrail audit;
  private boolean reloadAfterStart;

  /** A daemon whose reload reads its file again with this process's environment. */
  public Daemon(PreparedConfig prepared) {
    this(
        prepared,
        () ->
            PreparedConfig.load(
                Path.of(prepared.config().file()), System.getenv(), StoreModules.discover()));
  }

  /**
   * @param source reads and checks the file again for a reload, as {@code run} did at start
   */
  public Daemon(PreparedConfig prepared, ConfigReload.Source source) {
    this(prepared, source, Clock.systemUTC());
  }

  /**
   * @param clock the wall clock of the scheduler, the admin endpoint, the history pruner and the
   *     node record
   */
  public Daemon(PreparedConfig prepared, ConfigReload.Source source, Clock clock) {
    this.prepared = prepared;
    this.source = source;
    this.clock = clock;
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
          StoreWords.describe(config.store()));
      // the daemon is assembled while the self-check runs (it claims nothing: the scheduler
      // starts below, once the check passed)
      AtomicReference<Injector> assembled = new AtomicReference<>();
      Optional<StoreBackend> opened =
          StoreOpener.openWithRetry(
              prepared.storeFactory(),
              config.store(),
              config.node(),
              shutdownRequested,
              store -> {
                assembled.set(
                    Guice.createInjector(
                        Stage.PRODUCTION, new DaemonModule(prepared, store, source, clock)));
                StartupTrace.mark("injector built");
              });
      if (opened.isEmpty()) {
        log.info("shutdown requested before the store answered");
        return 0;
      }
      StartupTrace.mark("store opened and checked");
      try (StoreBackend backend = opened.get()) {
        Injector injector = assembled.get();
        Optional<DaemonMetrics> metrics = injector.getInstance(METRICS);
        List<JobDefinition> jobs = injector.getInstance(JOBS);
        scheduler = injector.getInstance(Scheduler.class);
        SchedulerThreads threads = injector.getInstance(SchedulerThreads.class);
        ConfigReload reload = injector.getInstance(ConfigReload.class);
        checks = injector.getInstance(DaemonChecks.class);
        if (metrics.isPresent()) {
          admin =
              AdminServer.start(
                  config,
                  scheduler,
                  backend,
                  injector.getInstance(StoreHealth.class),
                  metrics.get(),
                  backend.executionLog(),
                  reload,
                  clock);
          admin.onPing(checks::pinged);
        }
        StartupTrace.mark("scheduler built");
        scheduler.start();
        StartupTrace.mark("scheduler started");
        pruner =
            new HistoryPruner(
                backend.leaseStore(),
                backend.forgetting(),
                backend.executionLog(),
                config.history(),
                config.node(),
                clock,
                () -> Set.copyOf(reload.current().jobNames()));
        AuditTrail trail = AuditTrail.of(backend, clock);
        pruner
            .prunesJournal(backend.journal(), List.of(AuditTrail.STREAM))
            .onForgotten(
                job ->
                    trail.record(
                        Actor.daemon(config.node()),
                        AuditEntry.FORGET,
                        job,
                        AuditEntry.OK,
                        "lease record of a job no longer configured forgotten by the history"
                            + " prune"));
        pruner.start(threads.timer(), threads.workers());
        publisher =
            new NodePublisher(
                backend,
                config.node(),
                BuildInfo.version(),
                JobDigest.following(() -> reload.current().jobs(), DigestKey.of(backend)),
                clock);
        if (metrics.isPresent()) {
          publisher.onRead(new NodeMetrics(metrics.get().registry())::update);
        }
        publisher.start(threads.timer(), threads.workers());
        checks.start(reload.current().checks(), backend, threads);
        startReloads(reload, trail);
        log.info(
            "started: {} jobs, store {}, node {} in {} ms",
            jobs.size(),
            StoreWords.describe(config.store()),
            config.node(),
            ManagementFactory.getRuntimeMXBean().getUptime());
        awaitShutdown();
        Duration grace = reload.current().shutdownGrace();
        log.info("stopping: waiting up to {} for running jobs", Durations.human(grace));
        if (admin != null) {
          admin.close();
        }
        pruner.close();
        publisher.close();
        checks.close();
        // the last runs' notifications being sent get up to 10 s more (a desk left by a stop is
        // taken over by another replica after the job's ttl)
        scheduler.stop(grace);
        threads.close();
      }
      log.info("stopped");
      return 0;
    } finally {
      stopped.countDown();
    }
  }

  /**
   * Reads the file again and applies it (SIGHUP ends here); a reload asked for while the daemon
   * starts runs once it has started, so a file changed meanwhile is not missed.
   */
  public void reload() {
    synchronized (this) {
      if (reloader == null) {
        reloadAfterStart = true;
        log.info("reload asked for while starting: the file is read again once started");
        return;
      }
    }
    audited(reloader.reload());
  }

  /** A reload on SIGHUP in the audit trail: by the daemon's own user, host and node. */
  private void audited(ConfigReload.Outcome outcome) {
    String result = outcome instanceof ConfigReload.Applied ? AuditEntry.OK : AuditEntry.REFUSED;
    audit.record(
        Actor.signal(prepared.config().node()),
        AuditEntry.RELOAD,
        null,
        result,
        "SIGHUP: " + ConfigReload.describe(outcome));
  }

  private void startReloads(ConfigReload reload, AuditTrail trail) {
    boolean pending;
    synchronized (this) {
      audit = trail;
      reloader = reload;
      pending = reloadAfterStart;
    }
    if (pending) {
      audited(reload.reload());
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
