package dev.leasehold.app.daemon;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.notify.Notifier;
import dev.leasehold.app.notify.StartNotices;
import dev.leasehold.app.reload.ConfigReload;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.app.runner.JobRunners;
import dev.leasehold.app.runner.TaggedJobRunner;
import dev.leasehold.app.wiring.JobDefinitions;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Notices;
import dev.leasehold.core.scheduler.RequestMarker;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.scheduler.SchedulerListener;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * How {@code run} assembles a daemon: the prepared configuration and the store backend it opened
 * (both made before the injector, since opening retries until the store answers) go in; the store
 * health probe, the metrics (present when the admin endpoint is configured), the job runners, the
 * job definitions, the {@link Scheduler} and its {@link ConfigReload} come out. One small injector
 * per daemon, built in {@code Stage.PRODUCTION} so every singleton is made at once and a wiring
 * mistake fails the start, not the first firing. {@code StoreModules.guiceModule()} can be
 * installed beside it to inject the store factories.
 */
public final class DaemonModule extends AbstractModule {
  private final PreparedConfig prepared;
  private final StoreBackend backend;
  private final ConfigReload.Source source;
  private final Clock clock;

  /** A daemon whose reload reads nothing new: it applies the configuration it started with. */
  public DaemonModule(PreparedConfig prepared, StoreBackend backend) {
    this(prepared, backend, () -> prepared);
  }

  /**
   * @param source reads the file again for a reload (SIGHUP, {@code POST /reload})
   */
  public DaemonModule(PreparedConfig prepared, StoreBackend backend, ConfigReload.Source source) {
    this(prepared, backend, source, Clock.systemUTC());
  }

  /**
   * @param clock the wall clock bound for every part that reads "now"
   */
  public DaemonModule(
      PreparedConfig prepared, StoreBackend backend, ConfigReload.Source source, Clock clock) {
    this.prepared = prepared;
    this.backend = backend;
    this.source = source;
    this.clock = clock;
  }

  @Override
  protected void configure() {
    bind(DaemonConfig.class).toInstance(prepared.config());
    bind(StoreFactory.class).toInstance(prepared.storeFactory());
    bind(StoreBackend.class).toInstance(backend);
    bind(Clock.class).toInstance(clock);
  }

  @Provides
  @Singleton
  StoreHealth storeHealth(StoreBackend backend) {
    return new StoreHealth(backend, System::nanoTime);
  }

  /** Present when the admin endpoint is configured; it is their only reader. */
  @Provides
  @Singleton
  Optional<DaemonMetrics> metrics(DaemonConfig config, StoreHealth health, Clock clock) {
    return config.admin() == null
        ? Optional.empty()
        : Optional.of(new DaemonMetrics(health, config.jobs(), clock));
  }

  @Provides
  @Singleton
  JobRunners jobRunners() {
    return newJobRunners();
  }

  private static JobRunners newJobRunners() {
    return new JobRunners(HttpJobRunner::newClient);
  }

  @Provides
  @Singleton
  List<JobDefinition> jobs(
      DaemonConfig config,
      JobRunners runners,
      Optional<DaemonMetrics> metrics,
      Optional<Notifier> notifier) {
    return definitions(runners, metrics, notifier).apply(config);
  }

  /**
   * A configuration's jobs, each runner tagged (and counted when there are metrics, and announcing
   * its starts when there is a notifier).
   */
  private static Function<DaemonConfig, List<JobDefinition>> definitions(
      JobRunners runners, Optional<DaemonMetrics> metrics, Optional<Notifier> notifier) {
    UnaryOperator<JobRunner> measured =
        metrics
            .<UnaryOperator<JobRunner>>map(m -> runner -> TaggedJobRunner.tag(m.instrument(runner)))
            .orElse(TaggedJobRunner::tag);
    UnaryOperator<JobRunner> decorate =
        notifier
            .<UnaryOperator<JobRunner>>map(
                n -> runner -> StartNotices.wrap(measured.apply(runner), n))
            .orElse(measured);
    return config -> JobDefinitions.from(config, runners, decorate);
  }

  /**
   * Reload without a restart: the same runners and metrics as the start, the notifier told of the
   * new notify settings, the metrics of the new jobs and of the verdict.
   */
  @Provides
  @Singleton
  ConfigReload configReload(
      DaemonConfig config,
      Scheduler scheduler,
      JobRunners runners,
      Optional<DaemonMetrics> metrics,
      Optional<Notifier> notifier,
      DaemonChecks checks,
      Clock clock) {
    ConfigReload.Listener listener =
        new ConfigReload.Listener() {
          @Override
          public void applying(DaemonConfig next) {
            metrics.ifPresent(m -> m.jobsConfigured(next.jobs()));
            notifier.ifPresent(n -> n.jobs(notifiers(next)));
            checks.reloaded(next);
          }

          @Override
          public void applied() {
            metrics.ifPresent(m -> m.reloaded(true));
          }

          @Override
          public void failed() {
            metrics.ifPresent(m -> m.reloaded(false));
          }
        };
    return new ConfigReload(
        config,
        source,
        scheduler,
        definitions(runners, metrics, notifier),
        listener,
        clock,
        notifier.isPresent());
  }

  /** The heartbeat checks: watched once the scheduler started, told of each reload. */
  @Provides
  @Singleton
  DaemonChecks daemonChecks(DaemonConfig config, Clock clock) {
    return new DaemonChecks(config, clock);
  }

  /** The scheduler's timer and workers, shared with the history pruner and the node publisher. */
  @Provides
  @Singleton
  SchedulerThreads schedulerThreads() {
    return SchedulerThreads.create();
  }

  @Provides
  @Singleton
  Scheduler scheduler(
      DaemonConfig config,
      StoreBackend backend,
      List<JobDefinition> jobs,
      Clock clock,
      Optional<DaemonMetrics> metrics,
      Optional<Notifier> notifier,
      SchedulerThreads threads) {
    List<SchedulerListener> listeners = new ArrayList<>();
    metrics.ifPresent(listeners::add);
    return assemble(
            config, backend, jobs, clock, listeners, config.node(), notifier.<Notices>map(n -> n))
        .takeTriggerRequests(TRIGGER_REQUEST_POLL)
        .timer(threads.timer())
        .workers(threads.workers())
        .build();
  }

  /**
   * The scheduler of the one-shot {@code trigger}: the same job definitions, runners, policies and
   * groups as {@code run} assembles, without an injector, metrics or notifier (a manual run is
   * reported on the command line, not to the job's notifier).
   */
  public static Scheduler oneShotScheduler(DaemonConfig config, StoreBackend backend, Clock clock) {
    List<JobDefinition> jobs =
        definitions(newJobRunners(), Optional.empty(), Optional.empty()).apply(config);
    return assemble(config, backend, jobs, clock, List.of(), cliNode(config), Optional.empty())
        .build();
  }

  /**
   * The node name of a job run in the command's own process ({@code trigger --here}) and of the
   * requester of {@code trigger}: the configured node followed by {@code /cli}, so that history
   * tells them from the daemon of the same node.
   */
  public static String cliNode(DaemonConfig config) {
    String node = config.node();
    return (node.length() > 196 ? node.substring(0, 196) : node) + "/cli";
  }

  /**
   * How often a daemon looks for the requests of {@code leasehold trigger}: one read of the request
   * marker ({@link RequestMarker}), and of the queue only when the marker moved (or a request
   * waits).
   */
  public static final Duration TRIGGER_REQUEST_POLL = Duration.ofSeconds(2);

  /** The one place the app builds a {@link Scheduler}: for {@code run} and for {@code trigger}. */
  private static Scheduler.Builder assemble(
      DaemonConfig config,
      StoreBackend backend,
      List<JobDefinition> jobs,
      Clock clock,
      List<SchedulerListener> listeners,
      String node,
      Optional<Notices> notices) {
    Scheduler.Builder builder =
        Scheduler.builder()
            .node(node)
            .store(backend.leaseStore())
            .executionLog(
                RequestMarker.signaling(
                    backend.executionLog(), backend.leaseStore(), backend.requestSignals()))
            .groups(config.groups())
            .jobs(jobs)
            .clock(clock);
    notices.ifPresent(builder::notices);
    if (!listeners.isEmpty()) {
      builder.listener(listeners.size() == 1 ? listeners.get(0) : new Listeners(listeners));
    }
    return builder;
  }

  /** Present when a job has a notifier ({@code notify:}). */
  @Provides
  @Singleton
  Optional<Notifier> notifier(DaemonConfig config, StoreBackend backend, Clock clock) {
    Map<String, NotifyConfig> byJob = notifiers(config);
    return byJob.isEmpty()
        ? Optional.empty()
        : Optional.of(
            new Notifier(byJob, backend.executionLog(), HttpJobRunner.newClient(), clock));
  }

  private static Map<String, NotifyConfig> notifiers(DaemonConfig config) {
    Map<String, NotifyConfig> byJob = new HashMap<>();
    for (JobConfig job : config.jobs()) {
      if (job.notifier() != null) {
        byJob.put(job.name(), job.notifier());
      }
    }
    return byJob;
  }

  /** Every listener hears everything, in order. */
  private record Listeners(List<SchedulerListener> all) implements SchedulerListener {
    @Override
    public void executionFinished(ExecutionRecord record) {
      all.forEach(l -> l.executionFinished(record));
    }

    @Override
    public void executionFinished(ExecutionRecord record, boolean retrying) {
      all.forEach(l -> l.executionFinished(record, retrying));
    }

    @Override
    public void firingMissed(String job, Instant firing) {
      all.forEach(l -> l.firingMissed(job, firing));
    }

    @Override
    public void claimRefused(String job, Instant firing) {
      all.forEach(l -> l.claimRefused(job, firing));
    }

    @Override
    public void storeUnavailable(String job, RuntimeException error) {
      all.forEach(l -> l.storeUnavailable(job, error));
    }

    @Override
    public void storeAnswered() {
      all.forEach(SchedulerListener::storeAnswered);
    }
  }
}
