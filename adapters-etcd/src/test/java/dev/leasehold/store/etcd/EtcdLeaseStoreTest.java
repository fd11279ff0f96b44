package dev.leasehold.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.TestProcesses;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What is particular to etcd (reasons and batches are the kit's): etcd leases, keys deleted by an
 * operator, auth.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdLeaseStoreTest {
  private static final Instant F1 = Instant.parse("2026-11-30T06:30:00Z");
  private static final Instant F2 = F1.plusSeconds(60);
  private static final Duration LONG = Duration.ofMinutes(5);
  private static EtcdServers etcd;

  private final List<StoreBackend> opened = new ArrayList<>();
  private LeaseStore store;
  private final String name = "job-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdServers.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @BeforeEach
  void open() {
    store = open(etcd.settings());
  }

  private LeaseStore open(StoreSettings settings) {
    StoreBackend backend = new EtcdStoreFactory().open(settings);
    opened.add(backend);
    return backend.leaseStore();
  }

  @AfterEach
  void close() {
    opened.forEach(StoreBackend::close);
  }

  @Test
  void fencesAreRevisionsSoTheyRiseAcrossNames() {
    Lease a = store.claim(name + "-a", F1, "node", LONG).orElseThrow();
    Lease b = store.claim(name + "-b", F1, "node", LONG).orElseThrow();
    Lease c = store.acquire(name + "-a2", "node", LONG).orElseThrow();
    assertThat(b.fence()).isGreaterThan(a.fence());
    assertThat(c.fence()).isGreaterThan(b.fence());
  }

  @Test
  void aSubSecondTtlIsHeldByEtcdForAtLeastAWholeSecond() {
    store.acquire(name, "node-a", Duration.ofMillis(300)).orElseThrow();
    String kv = raw("/v3/kv/range", "{\"key\":\"" + b64(etcd.prefix() + "lease/" + name) + "\"}");
    String leaseId = field(kv, "lease");
    String ttl = raw("/v3/lease/timetolive", "{\"ID\":\"" + leaseId + "\"}");
    assertThat(Long.parseLong(field(ttl, "grantedTTL"))).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aLeaseKeyDeletedWithEtcdctlIsALostLease() throws Exception {
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    etcdctl("del", etcd.prefix() + "lease/" + name);
    assertThat(store.renew(lease, LONG)).isFalse();
    assertThat(store.release(lease)).isFalse();
    LeaseStore other = open(etcd.settings());
    assertThat(other.claim(name, F1, "node-b", LONG)).as("the watermark stays").isEmpty();
    Lease next = other.claim(name, F2, "node-b", LONG).orElseThrow();
    assertThat(next.fence()).isGreaterThan(lease.fence());
  }

  @Test
  void anEtcdLeaseRevokedWithEtcdctlIsALostLease() throws Exception {
    Lease lease = store.acquire(name, "node-a", LONG).orElseThrow();
    String kv = raw("/v3/kv/range", "{\"key\":\"" + b64(etcd.prefix() + "lease/" + name) + "\"}");
    etcdctl("lease", "revoke", Long.toHexString(Long.parseLong(field(kv, "lease"))));
    assertThat(store.renew(lease, LONG)).isFalse();
    assertThat(store.inspect(name).orElseThrow().held()).isFalse();
  }

  @Test
  void refusedClaimsAndReleasesLeaveNoEtcdLeaseBehind() {
    int before = leaseCount();
    Lease lease = store.claim(name, F1, "node-a", LONG).orElseThrow();
    for (int i = 0; i < 5; i++) {
      assertThat(store.claim(name, F2, "node-b", LONG)).isEmpty();
      assertThat(store.acquire(name, "node-b", LONG)).isEmpty();
    }
    assertThat(store.release(lease)).isTrue();
    eventually(() -> leaseCount() == before);
  }

  @Test
  void aRenewalWithAShorterTtlKeepsTheLongerServerLease() {
    Lease lease = store.acquire(name, "node-a", Duration.ofSeconds(30)).orElseThrow();
    assertThat(store.renew(lease, Duration.ofSeconds(5))).isTrue();
    assertThat(store.inspect(name).orElseThrow().leaseUntil())
        .isAfter(Instant.now().plusSeconds(20));
  }

  @Test
  void userAndPasswordAreUsedAndAWrongPasswordIsAStoreErrorThatHidesIt() throws Exception {
    try (EtcdServers secured = EtcdServers.start(1)) {
      String endpoint = secured.urls().get(0);
      etcdctlAt(endpoint, "user", "add", "root", "--new-user-password=s3cret-pw");
      etcdctlAt(endpoint, "auth", "enable");
      LeaseStore authed = open(withUser(secured, "root", "s3cret-pw"));
      Lease lease = authed.claim(name, F1, "node-a", LONG).orElseThrow();
      assertThat(authed.inspect(name).orElseThrow().currentHolder()).contains("node-a");
      assertThat(authed.release(lease)).isTrue();
      LeaseStore wrong = open(withUser(secured, "root", "wrong-pw-42"));
      URI member = URI.create(endpoint);
      assertThatThrownBy(() -> wrong.claim(name, F2, "node-b", LONG))
          .isInstanceOf(StoreUnreachableException.class)
          .hasMessage(
              "etcd store: cannot connect to etcd at "
                  + member.getHost()
                  + ":"
                  + member.getPort()
                  + ": authentication failed (user root)")
          .hasMessageNotContaining("wrong-pw-42");
      LeaseStore anonymous = open(secured.settings());
      assertThatThrownBy(() -> anonymous.inspect(name)).isInstanceOf(LeaseStoreException.class);
    }
  }

  private static StoreSettings withUser(EtcdServers servers, String user, String password) {
    return new StoreSettings(
        "etcd",
        null,
        servers.urls(),
        user,
        password,
        servers.prefix(),
        EtcdServers.TIMEOUT,
        Map.of());
  }

  private static int leaseCount() {
    String leases = raw("/v3/lease/leases", "{}");
    return leases.split("\"ID\"", -1).length - 1;
  }

  private static void eventually(BooleanSupplier condition) {
    long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 15 s").isLessThan(end);
      TestProcesses.pause(50);
    }
  }

  private static String raw(String path, String body) {
    String answer = etcd.member(0).post(path, body);
    assertThat(answer).as(path).isNotNull();
    return answer;
  }

  private static String field(String json, String name) {
    int at = json.indexOf("\"" + name + "\":\"");
    assertThat(at).as(name + " in " + json).isNotNegative();
    int from = at + name.length() + 4;
    return json.substring(from, json.indexOf('"', from));
  }

  private static String b64(String s) {
    return java.util.Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static void etcdctl(String... args) throws IOException, InterruptedException {
    etcdctlAt(etcd.urls().get(0), args);
  }

  static void etcdctlAt(String endpoint, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoint));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("ETCDCTL_API", "3");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("etcdctl " + args[0] + ": " + output).isZero();
  }
}
