package dev.leasehold.app.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import dev.leasehold.app.admin.DaemonMetrics;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon's parts come out of one Guice injector built from the config and the open store. */
class DaemonModuleTest {
  private static final Key<Optional<DaemonMetrics>> METRICS =
      Key.get(new TypeLiteral<Optional<DaemonMetrics>>() {});
  private static final Key<List<JobDefinition>> JOBS =
      Key.get(new TypeLiteral<List<JobDefinition>>() {});

  @TempDir Path dir;

  @Test
  void theInjectorMakesOneSchedulerWithEveryConfiguredJobAndNoMetricsWithoutAdmin()
      throws Exception {
    PreparedConfig prepared = prepared("");
    try (StoreBackend backend = prepared.storeFactory().open(prepared.config().store())) {
      Injector injector =
          Guice.createInjector(Stage.PRODUCTION, new DaemonModule(prepared, backend));

      Scheduler scheduler = injector.getInstance(Scheduler.class);
      assertThat(injector.getInstance(Scheduler.class)).isSameAs(scheduler);
      assertThat(injector.getInstance(JOBS))
          .extracting(JobDefinition::name)
          .containsExactly("tick", "nightly");
      assertThat(injector.getInstance(METRICS)).isEmpty();
      assertThat(injector.getInstance(StoreBackend.class)).isSameAs(backend);
    }
  }

  @Test
  void metricsArePresentWhenTheAdminEndpointIsConfiguredAndTheStoreFactoriesCanBeInjectedBeside()
      throws Exception {
    PreparedConfig prepared = prepared("admin:\n  listen: 127.0.0.1:0\n");
    StoreModules stores = StoreModules.discover();
    try (StoreBackend backend = prepared.storeFactory().open(prepared.config().store())) {
      Injector injector =
          Guice.createInjector(
              Stage.PRODUCTION, new DaemonModule(prepared, backend), stores.guiceModule());

      assertThat(injector.getInstance(METRICS)).isPresent();
      Map<String, StoreFactory> factories =
          injector.getInstance(Key.get(new TypeLiteral<Map<String, StoreFactory>>() {}));
      assertThat(factories).containsKeys("memory", "h2");
      // the prepared factory is the memory store's, wrapped for the configured namespace
      assertThat(factories.get("memory").types()).isEqualTo(prepared.storeFactory().types());
    }
  }

  private PreparedConfig prepared(String extra) throws Exception {
    Path file = dir.resolve("daemon.yaml");
    Files.writeString(
        file,
        "node: wired\nstore:\n  type: memory\n  url: memory:wired-"
            + UUID.randomUUID()
            + "\n"
            + extra
            + "jobs:\n"
            + "  - name: tick\n    every: 1s\n    command: [\"true\"]\n"
            + "  - name: nightly\n    cron: \"0 2 * * *\"\n    command: [\"true\"]\n");
    return PreparedConfig.load(file, Map.of(), StoreModules.discover());
  }
}
