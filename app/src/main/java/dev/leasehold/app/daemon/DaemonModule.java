package dev.leasehold.app.daemon;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.admin.StoreHealth;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.app.runner.JobRunners;
import dev.leasehold.app.runner.TaggedJobRunner;
import dev.leasehold.app.wiring.JobDefinitions;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.core.job.JobRunner;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.scheduler.SchedulerListener;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * How {@code run} assembles a daemon: the prepared configuration and the store backend it opened
 * (both made before the injector, since opening retries until the store answers) go in; the store
 * health probe, the metrics (present when the admin endpoint is configured), the job runners, the
 * job definitions and the {@link Scheduler} come out. One small injector per daemon, built in
 * {@code Stage.PRODUCTION} so every singleton is made at once and a wiring mistake fails the start,
 * not the first firing. {@code StoreModules.guiceModule()} can be installed beside it to inject the
 * store factories.
 */
public final class DaemonModule extends AbstractModule {
  private final PreparedConfig prepared;
  private final StoreBackend backend;

  public DaemonModule(PreparedConfig prepared, StoreBackend backend) {
    this.prepared = prepared;
    this.backend = backend;
  }

  @Override
  protected void configure() {
    bind(DaemonConfig.class).toInstance(prepared.config());
    bind(StoreFactory.class).toInstance(prepared.storeFactory());
    bind(StoreBackend.class).toInstance(backend);
    bind(Clock.class).toInstance(Clock.systemUTC());
  }

  @Provides
  @Singleton
  StoreHealth storeHealth(StoreBackend backend) {
    return new StoreHealth(backend, System::nanoTime);
  }

  /** Present when the admin endpoint is configured; it is their only reader. */
  @Provides
  @Singleton
  Optional<DaemonMetrics> metrics(DaemonConfig config, StoreHealth health) {
    return config.admin() == null
        ? Optional.empty()
        : Optional.of(new DaemonMetrics(health, config.jobs()));
  }

  @Provides
  @Singleton
  JobRunners jobRunners() {
    return new JobRunners(HttpJobRunner::newClient);
  }

  @Provides
  @Singleton
  List<JobDefinition> jobs(
      DaemonConfig config, JobRunners runners, Optional<DaemonMetrics> metrics) {
    UnaryOperator<JobRunner> decorate =
        metrics
            .<UnaryOperator<JobRunner>>map(m -> runner -> TaggedJobRunner.tag(m.instrument(runner)))
            .orElse(TaggedJobRunner::tag);
    return JobDefinitions.from(config, runners, decorate);
  }

  @Provides
  @Singleton
  Scheduler scheduler(
      DaemonConfig config,
      StoreBackend backend,
      List<JobDefinition> jobs,
      Clock clock,
      Optional<DaemonMetrics> metrics) {
    return Scheduler.builder()
        .node(config.node())
        .store(backend.leaseStore())
        .executionLog(backend.executionLog())
        .jobs(jobs)
        .clock(clock)
        .listener(metrics.<SchedulerListener>map(m -> m).orElse(SchedulerListener.NONE))
        .build();
  }
}
