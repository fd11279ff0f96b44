package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** An ACL user restricted as docs/stores/redis.md suggests, on a private redis-server. */
class RedisAclTest {
  private static final String PASSWORD = "acl-s3cret";
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static RedisServers servers;

  @BeforeAll
  static void start() {
    servers = RedisServers.start(1, false);
    SharedRedis.with(
        servers.get(0).url(),
        r ->
            r.aclSetuser(
                "leasehold",
                io.lettuce.core.AclSetuserArgs.Builder.on()
                    .addPassword(PASSWORD)
                    .keyPattern("lh:*")
                    .addCommand(io.lettuce.core.protocol.CommandType.EVALSHA)
                    .addCommand(io.lettuce.core.protocol.CommandType.EVAL)
                    .addCommand(io.lettuce.core.protocol.CommandType.PING)
                    .addCommand(io.lettuce.core.protocol.CommandType.SCAN)
                    .addCommand(io.lettuce.core.protocol.CommandType.XADD)
                    .addCommand(io.lettuce.core.protocol.CommandType.XREVRANGE)
                    .addCommand(io.lettuce.core.protocol.CommandType.TIME)
                    .addCommand(io.lettuce.core.protocol.CommandType.EXISTS)
                    .addCommand(io.lettuce.core.protocol.CommandType.GET)
                    .addCommand(io.lettuce.core.protocol.CommandType.SET)
                    .addCommand(io.lettuce.core.protocol.CommandType.DEL)
                    .addCommand(io.lettuce.core.protocol.CommandType.PEXPIRE)
                    .addCommand(io.lettuce.core.protocol.CommandType.PTTL)
                    .addCommand(io.lettuce.core.protocol.CommandType.HGET)
                    .addCommand(io.lettuce.core.protocol.CommandType.HMGET)
                    .addCommand(io.lettuce.core.protocol.CommandType.HSET)
                    .addCommand(io.lettuce.core.protocol.CommandType.HDEL)));
  }

  @AfterAll
  static void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private static StoreSettings settings(String password) {
    return new StoreSettings(
        "redis",
        servers.get(0).url(),
        List.of(),
        "leasehold",
        password,
        null,
        RedisServers.TIMEOUT,
        Map.of());
  }

  @Test
  void withoutThePubSubPermissionsTheDaemonsCannotListenAndASignalFailsQuietly() {
    try (StoreBackend backend = new RedisStoreFactory().open(settings(PASSWORD))) {
      assertThatThrownBy(() -> backend.requestSignals().orElseThrow().listen(() -> {}))
          .as("no node takes the subscription: the daemon polls the marker instead")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("SUBSCRIBE");
      backend.requestSignals().orElseThrow().signal(); // refused, logged, not thrown
    }
  }

  @Test
  void theDocumentedAclIsEnoughForEveryOperation() {
    try (StoreBackend backend = new RedisStoreFactory().open(settings(PASSWORD))) {
      backend.ping();
      LeaseStore store = backend.leaseStore();
      Lease lease = store.claim("acl-job", F1, "node-a", Duration.ofMinutes(1)).orElseThrow();
      assertThat(store.renew(lease, Duration.ofMinutes(1))).isTrue();
      assertThat(store.list()).extracting(s -> s.name()).contains("acl-job");
      assertThat(store.release(lease)).isTrue();
      backend
          .executionLog()
          .record(
              new ExecutionRecord(
                  "acl-job",
                  F1,
                  "node-a",
                  lease.fence(),
                  TriggerKind.SCHEDULED,
                  F1,
                  F1,
                  Outcome.SUCCEEDED,
                  0,
                  null));
      assertThat(backend.executionLog().recent(null, 5)).hasSize(1);
    }
  }

  @Test
  void aWrongPasswordIsAStoreFailureThatDoesNotShowThePassword() {
    try (StoreBackend backend = new RedisStoreFactory().open(settings("wrong-pw"))) {
      assertThatThrownBy(() -> backend.leaseStore().acquire("acl-job", "n", Duration.ofSeconds(5)))
          .isInstanceOf(LeaseStoreException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-pw"));
      assertThatThrownBy(backend::ping)
          .isInstanceOf(dev.leasehold.core.lease.StoreUnreachableException.class)
          .hasMessageStartingWith("Redis store: cannot connect to Redis at 127.0.0.1:")
          .hasMessageEndingWith(": authentication failed")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-pw"));
    }
  }
}
