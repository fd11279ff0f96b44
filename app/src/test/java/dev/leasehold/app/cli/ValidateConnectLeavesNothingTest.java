package dev.leasehold.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.storekit.testing.ServerAvailability;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Twenty {@code validate --connect} runs (each its own node id, so its own start slot) leave no
 * self-check scratch record behind: on an embedded H2 file and on the Redis server on
 * 127.0.0.1:6379 (under a fresh key prefix, where not even a high-water key of a scratch name may
 * remain).
 */
class ValidateConnectLeavesNothingTest {
  private static final int RUNS = 20;

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
      redisPrefix = "lh-validate-" + UUID.randomUUID().toString().substring(0, 8) + ":";
      section =
          "store:\n  type: redis\n  url: redis://127.0.0.1:6379\n  key-prefix: \""
              + redisPrefix
              + "\"\n";
    }
    config = dir.resolve("leasehold.yaml");
    Files.writeString(
        config, section + "jobs:\n  - name: tick\n    every: 1h\n    command: [\"true\"]\n");
  }

  private List<String> redisKeys() {
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      List<String> keys = new ArrayList<>();
      ScanIterator.scan(c.sync(), ScanArgs.Builder.matches(redisPrefix + "*").limit(500))
          .forEachRemaining(keys::add);
      return keys;
    } finally {
      client.shutdown();
    }
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

  @ParameterizedTest
  @ValueSource(strings = {"h2", "redis"})
  void twentyValidateConnectRunsLeaveNoScratchRecords(String store) throws Exception {
    writeConfig(store);
    for (int i = 1; i <= RUNS; i++) {
      CliHarness.Result result = cli.run("validate", "--connect", "--config", config.toString());
      assertThat(result.code()).as("run %d: %s", i, result.err()).isZero();
      assertThat(result.out()).contains("self-check passed");
    }

    PreparedConfig prepared = PreparedConfig.load(config, Map.of(), StoreModules.discover());
    try (StoreBackend backend = prepared.storeFactory().open(prepared.config().store())) {
      assertThat(backend.leaseStore().list())
          .extracting(LeaseState::name)
          .noneMatch(StoreSelfCheck::isScratch);
    }
    if (redisPrefix != null) {
      assertThat(redisKeys()).noneMatch(k -> k.contains(StoreSelfCheck.SCRATCH_PREFIX));
    }
  }
}
