package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.testing.ServerAvailability;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code reset} against real stores: an embedded H2 file and the Redis server on 127.0.0.1:6379
 * (under a fresh key prefix, whose keys are deleted afterwards).
 */
class ResetCommandTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Duration LONG = Duration.ofMinutes(5);

  @TempDir Path dir;
  private Path config;
  private String redisPrefix;
  private final CliHarness cli = new CliHarness();

  private void writeConfig(String store) throws Exception {
    String section;
    if (store.equals("h2")) {
      section = "store:\n  type: h2\n  url: jdbc:h2:file:" + dir.resolve("db") + "\n";
    } else {
      ServerAvailability.require(
          "Redis on 127.0.0.1:6379", "127.0.0.1", 6379, "run: bash .ci/services.sh");
      redisPrefix = "lh-reset-" + UUID.randomUUID().toString().substring(0, 8) + ":";
      section =
          "store:\n  type: redis\n  url: redis://127.0.0.1:6379\n  key-prefix: \""
              + redisPrefix
              + "\"\n";
    }
    config = dir.resolve("leasehold.yaml");
    Files.writeString(
        config,
        "node: tester\n"
            + section
            + "jobs:\n  - name: long\n    every: 1h\n    ttl: 30s\n"
            + "    command: [\"true\"]\n");
  }

  @AfterEach
  void deleteRedisKeys() {
    if (redisPrefix == null) {
      return;
    }
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(redisPrefix + "*").limit(500))
          .forEachRemaining(c.sync()::del);
    } finally {
      client.shutdown();
    }
  }

  private String[] args(String command, String... more) {
    List<String> all = new ArrayList<>(List.of(command, "--config", config.toString()));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private StoreBackend openStore() throws Exception {
    PreparedConfig prepared = PreparedConfig.load(config, Map.of(), StoreModules.discover());
    return prepared.storeFactory().open(prepared.config().store());
  }

  /** Claims and releases three firings of {@code long}; returns the last fence. */
  private static long runThreeFirings(LeaseStore store) {
    long fence = 0;
    for (int i = 0; i < 3; i++) {
      Lease lease = store.claim("long", F1.plusSeconds(60L * i), "node-a", LONG).orElseThrow();
      fence = lease.fence();
      store.release(lease);
    }
    return fence;
  }

  private static List<ExecutionRecord> resets(StoreBackend backend) {
    return backend.executionLog().recent("long", 20).stream()
        .filter(r -> r.outcome() == Outcome.RESET)
        .toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "redis"})
  void aResetRaisesTheFenceRecordsItAndKeepsFiringsSpent(String store) throws Exception {
    writeConfig(store);
    try (StoreBackend backend = openStore()) {
      long before = runThreeFirings(backend.leaseStore());

      CliHarness.Result reset = cli.run(args("reset", "long"));

      assertThat(reset.code()).as(reset.err()).isZero();
      assertThat(reset.out()).contains("job 'long' reset by").contains("fence raised to");
      List<ExecutionRecord> recorded = resets(backend);
      assertThat(recorded)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.fence()).isGreaterThan(before);
                assertThat(r.detail()).contains("fence raised to " + r.fence());
              });
      LeaseState after = backend.leaseStore().inspect("long").orElseThrow();
      assertThat(after.held()).as("released").isFalse();
      assertThat(backend.leaseStore().claim("long", F1.plusSeconds(120), "node-b", LONG))
          .as("a firing already run")
          .isEmpty();
      Lease next =
          backend.leaseStore().claim("long", F1.plusSeconds(180), "node-b", LONG).orElseThrow();
      assertThat(next.fence()).isGreaterThan(recorded.get(0).fence());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "redis"})
  void aResetRefusesALiveLeaseAndChangesNothing(String store) throws Exception {
    writeConfig(store);
    try (StoreBackend backend = openStore()) {
      Lease held = backend.leaseStore().claim("long", F1, "node-a", LONG).orElseThrow();

      CliHarness.Result reset = cli.run(args("reset", "long"));

      assertThat(reset.code()).isEqualTo(1);
      assertThat(reset.errLines())
          .singleElement()
          .asString()
          .contains("reset refused")
          .contains("node-a")
          .contains("--force");
      assertThat(backend.leaseStore().inspect("long").orElseThrow().fence())
          .isEqualTo(held.fence());
      assertThat(resets(backend)).isEmpty();
      assertThat(backend.leaseStore().renew(held, LONG)).as("the holder renews on").isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "redis"})
  void aForcedResetStopsTheLiveHolderAndFencesItOut(String store) throws Exception {
    writeConfig(store);
    try (StoreBackend backend = openStore()) {
      // a holder that renews no more: its lease ends by its TTL, as a stalled daemon's does
      Lease held =
          backend.leaseStore().claim("long", F1, "node-a", Duration.ofSeconds(2)).orElseThrow();

      CliHarness.Result reset = cli.run(args("reset", "long", "--force"));

      assertThat(reset.code()).as(reset.err()).isZero();
      assertThat(reset.err()).contains("WARNING: --force").contains("node-a");
      assertThat(resets(backend))
          .singleElement()
          .satisfies(r -> assertThat(r.fence()).isGreaterThan(held.fence()))
          .satisfies(r -> assertThat(r.detail()).contains("--force"));
      assertThat(backend.leaseStore().renew(held, LONG)).as("the old holder").isFalse();
      assertThat(backend.leaseStore().inspect("long").orElseThrow().paused())
          .as("the pause the reset set is lifted")
          .isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2"})
  void anUnknownJobIsBadUsage(String store) throws Exception {
    writeConfig(store);
    CliHarness.Result reset = cli.run(args("reset", "nope"));
    assertThat(reset.code()).isEqualTo(2);
    assertThat(reset.errLines()).singleElement().asString().contains("unknown job 'nope'");
  }
}
