package dev.leasehold.store.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What is particular to ZooKeeper: sessions, ephemeral nodes, zxid fences, operator deletes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperLeaseStoreTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Duration WITHIN_SESSION = Duration.ofSeconds(20);
  private static ZooKeeperServers zookeeper;

  private final List<StoreBackend> opened = new ArrayList<>();
  private ZooKeeperLeaseStore store;
  private final String name = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = ZooKeeperServers.start(1);
  }

  @AfterAll
  static void stopZooKeeper() {
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @BeforeEach
  void open() {
    store = open(zookeeper.settings());
  }

  private ZooKeeperLeaseStore open(StoreSettings settings) {
    StoreBackend backend = new ZooKeeperStoreFactory().open(settings);
    opened.add(backend);
    return (ZooKeeperLeaseStore) backend.leaseStore();
  }

  @AfterEach
  void close() {
    opened.forEach(StoreBackend::close);
  }

  private String leasePath() {
    return "/leasehold-test/" + zookeeper.prefix() + "/leases/" + name;
  }

  private Stat leaseNode() throws Exception {
    return store.session().zk().exists(leasePath(), false);
  }

  @Test
  void theFenceIsTheLeaseNodesCreationZxidAndRisesAcrossNames() throws Exception {
    Lease a = store.claim(name, F1, "node", LONG).orElseThrow();
    assertThat(a.fence()).isEqualTo(leaseNode().getCzxid());
    Lease b = store.acquire(name + "-b", "node", LONG).orElseThrow();
    assertThat(b.fence()).isGreaterThan(a.fence());
  }

  @Test
  void aTtlWithinTheSessionTimeoutIsAnEphemeralNodeOfTheHoldersSession() throws Exception {
    store.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    assertThat(leaseNode().getEphemeralOwner()).isEqualTo(store.session().sessionId());
  }

  @Test
  void aTtlBeyondTheSessionTimeoutIsAPersistentNode() throws Exception {
    store.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(leaseNode().getEphemeralOwner()).isZero();
  }

  @Test
  void aRenewalBeyondTheSessionTimeoutMovesTheLeaseOffTheSessionAndKeepsTheFence()
      throws Exception {
    Lease lease = store.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    assertThat(store.renew(lease, LONG)).isTrue();
    assertThat(leaseNode().getEphemeralOwner()).isZero();
    assertThat(store.inspect(name).orElseThrow().fence()).isEqualTo(lease.fence());
    assertThat(store.renew(lease, LONG)).isTrue();
    assertThat(store.release(lease)).isTrue();
  }

  @Test
  void anExpiredSessionEndsItsLeasesAndTheirRenewalIsRefused() throws Exception {
    Lease lease = store.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    ZooKeeperLeaseStore other = open(zookeeper.settings());
    expire(store.session().zk());
    eventually(() -> exists(other, leasePath()) == null);
    assertThat(store.renew(lease, WITHIN_SESSION)).isFalse();
    assertThat(other.claim(name, F1, "node-b", LONG)).as("the watermark stays").isEmpty();
    assertThat(other.claim(name, F2, "node-b", LONG).orElseThrow().fence())
        .isGreaterThan(lease.fence());
    // Curator opened a new session: the same store works again
    assertThat(store.acquire(name + "-after", "node-a", WITHIN_SESSION)).isPresent();
  }

  @Test
  void aClosedStoreFreesItsEphemeralLeasesAtOnce() {
    ZooKeeperLeaseStore closing = open(zookeeper.settings());
    closing.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    assertThat(store.claim(name, F2, "node-b", WITHIN_SESSION)).isEmpty();
    closing.close();
    assertThat(store.claim(name, F2, "node-b", WITHIN_SESSION))
        .as("well before the 20 s TTL")
        .isPresent();
  }

  @Test
  void aLeaseNodeDeletedWithZkCliIsALostLease() throws Exception {
    Lease lease = store.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    zkCli("delete", leasePath());
    assertThat(store.renew(lease, WITHIN_SESSION)).isFalse();
    assertThat(store.release(lease)).isFalse();
    ZooKeeperLeaseStore other = open(zookeeper.settings());
    assertThat(other.claim(name, F1, "node-b", LONG)).isEmpty();
    assertThat(other.claim(name, F2, "node-b", LONG)).isPresent();
  }

  @Test
  void aLeaseNodeOverwrittenWithForeignDataIsNoLease() throws Exception {
    Lease lease = store.claim(name, F1, "node-a", WITHIN_SESSION).orElseThrow();
    store.session().zk().setData(leasePath(), "not a lease".getBytes(StandardCharsets.UTF_8), -1);
    assertThat(store.renew(lease, WITHIN_SESSION)).isFalse();
    assertThat(store.inspect(name).orElseThrow().held()).isFalse();
    assertThat(open(zookeeper.settings()).claim(name, F2, "node-b", LONG)).isPresent();
  }

  @Test
  void digestCredentialsProtectTheNodes() {
    StoreSettings base = zookeeper.settings();
    StoreSettings secured =
        new StoreSettings(
            base.type(),
            base.url(),
            List.of(),
            "leasehold",
            "s3cret",
            base.keyPrefix() + "-secured",
            base.commandTimeout(),
            Map.of());
    ZooKeeperLeaseStore owner = open(secured);
    Lease lease = owner.claim(name, F1, "node-a", LONG).orElseThrow();
    assertThat(owner.inspect(name).orElseThrow().currentHolder()).contains("node-a");
    StoreSettings anonymous =
        new StoreSettings(
            base.type(),
            base.url(),
            List.of(),
            null,
            null,
            secured.keyPrefix(),
            base.commandTimeout(),
            Map.of());
    ZooKeeperLeaseStore stranger = open(anonymous);
    assertThatThrownBy(() -> stranger.inspect(name)).isInstanceOf(LeaseStoreException.class);
    assertThatThrownBy(() -> stranger.claim(name, F2, "intruder", LONG))
        .isInstanceOf(LeaseStoreException.class);
    assertThat(owner.release(lease)).isTrue();
  }

  private static Stat exists(ZooKeeperLeaseStore through, String path) {
    try {
      return through.session().zk().exists(path, false);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Expires a session the way the ensemble does: another client attaches to it and closes it. */
  static void expire(ZooKeeper zk) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper twin =
        new ZooKeeper(
            zookeeper.connectString(),
            10_000,
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            },
            zk.getSessionId(),
            zk.getSessionPasswd());
    assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
    twin.close();
  }

  private static void eventually(BooleanSupplier condition) {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 20 s").isLessThan(end);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static void zkCli(String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                "/usr/share/zookeeper/bin/zkCli.sh",
                "-server",
                "127.0.0.1:" + zookeeper.server(0).clientPort()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("zkCli.sh: " + output).isZero();
  }
}
