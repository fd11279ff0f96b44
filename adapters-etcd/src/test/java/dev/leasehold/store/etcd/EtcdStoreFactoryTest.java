package dev.leasehold.store.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Settings checks and wiring; no server needed (an unreachable endpoint is opened on purpose). */
class EtcdStoreFactoryTest {
  private final EtcdStoreFactory factory = new EtcdStoreFactory();

  private static StoreSettings one(String url) {
    return StoreSettings.of("etcd", url);
  }

  private static StoreSettings members(String... urls) {
    return new StoreSettings("etcd", null, List.of(urls), null, null, null, null, Map.of());
  }

  private static StoreSettings settings(
      String prefix, String user, String password, Duration timeout, Map<String, String> options) {
    return new StoreSettings(
        "etcd", "http://127.0.0.1:2379", List.of(), user, password, prefix, timeout, options);
  }

  @Test
  void isFoundThroughTheStoreFactoryServiceType() {
    assertThat(ServiceLoader.load(StoreFactory.class).stream().map(ServiceLoader.Provider::type))
        .contains(EtcdStoreFactory.class);
    assertThat(factory.types()).containsExactly("etcd");
  }

  @Test
  void acceptsEveryDocumentedEndpointForm() {
    for (String url :
        List.of(
            "http://127.0.0.1:2379",
            "http://etcd.example.org",
            "https://etcd.example.org:2379",
            "http://[::1]:2379/")) {
      assertThat(factory.validate(one(url))).as(url).isNull();
    }
    assertThat(factory.validate(members("http://a:2379", "http://b:2379", "https://c:2379")))
        .isNull();
  }

  @Test
  void namesTheFieldOfABadEndpoint() {
    assertThat(factory.validate(one(null))).startsWith("store.url: missing");
    assertThat(factory.validate(one("redis://127.0.0.1:2379"))).startsWith("store.url: expected");
    assertThat(factory.validate(one("http://127.0.0.1:2379/v3"))).startsWith("store.url: expected");
    assertThat(factory.validate(one("http:// bad"))).startsWith("store.url: ");
    assertThat(factory.validate(members("http://a:2379", "etcd://b:2379")))
        .startsWith("store.urls[1]: expected");
    StoreSettings both =
        new StoreSettings(
            "etcd", "http://a:2379", List.of("http://b:2379"), null, null, null, null, Map.of());
    assertThat(factory.validate(both)).startsWith("store.urls: give either");
    assertThat(factory.validate(StoreSettings.of("etcd3", "http://a:2379")))
        .startsWith("store.type:");
  }

  @Test
  void credentialsBelongInTheirOwnFieldsAndAreNeverShown() {
    String problem = factory.validate(one("http://root:hunter2@127.0.0.1:2379"));
    assertThat(problem).startsWith("store.url: put credentials").doesNotContain("hunter2");
    String bad = factory.validate(one("ftp://root:hunter2@127.0.0.1:2379"));
    assertThat(bad).doesNotContain("hunter2");
  }

  @Test
  void checksKeyPrefixCredentialsTimeoutAndOptions() {
    assertThat(factory.validate(settings("bad prefix", null, null, null, Map.of())))
        .startsWith("store.key-prefix:");
    assertThat(factory.validate(settings(null, "root", null, null, Map.of())))
        .startsWith("store.username:");
    assertThat(factory.validate(settings(null, null, "secret", null, Map.of())))
        .startsWith("store.password:");
    assertThat(factory.validate(settings(null, null, null, Duration.ZERO, Map.of())))
        .startsWith("store.command-timeout:");
    assertThat(factory.validate(settings(null, null, null, null, Map.of("history-max", "x"))))
        .startsWith("store.options.history-max:");
    assertThat(
            factory.validate(
                settings("app1/", "root", "pw", Duration.ofSeconds(2), Map.of("history-max", "9"))))
        .isNull();
  }

  @Test
  void everyProblemIsOneLine() {
    for (StoreSettings s :
        List.of(
            one(null),
            one("x"),
            members("http://a", ""),
            settings("a b", "u", null, null, Map.of()))) {
      assertThat(factory.validate(s)).doesNotContain("\n");
    }
  }

  @Test
  void openingBadSettingsThrowsTheSameProblem() {
    assertThatThrownBy(() -> factory.open(one("redis://x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("store.url: expected");
  }

  @Test
  void openingDoesNoIoAndAnUnreachableClusterIsAStoreError() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (StoreBackend backend = factory.open(members("http://127.0.0.1:" + port))) {
      assertThatThrownBy(backend::ping)
          .isInstanceOf(StoreUnreachableException.class)
          .hasMessage(
              "etcd store: cannot connect to etcd at 127.0.0.1:" + port + ": connection refused");
      assertThatThrownBy(() -> backend.leaseStore().inspect("some-job"))
          .isInstanceOf(LeaseStoreException.class);
    }
  }

  @Test
  void serverTtlsAreWholeSecondsRoundedUp() {
    assertThat(EtcdLeaseStore.serverSeconds(Duration.ofMillis(1))).isEqualTo(1);
    assertThat(EtcdLeaseStore.serverSeconds(Duration.ofMillis(400))).isEqualTo(1);
    assertThat(EtcdLeaseStore.serverSeconds(Duration.ofMillis(1000))).isEqualTo(1);
    assertThat(EtcdLeaseStore.serverSeconds(Duration.ofMillis(1001))).isEqualTo(2);
    assertThat(EtcdLeaseStore.serverSeconds(Duration.ofSeconds(30))).isEqualTo(30);
    assertThatThrownBy(() -> EtcdLeaseStore.serverSeconds(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void firingsEncodeInTheOrderOfTime() {
    List<java.time.Instant> instants =
        List.of(
            java.time.Instant.parse("1900-01-01T00:00:00Z"),
            java.time.Instant.parse("1969-12-31T23:59:59.999Z"),
            java.time.Instant.EPOCH,
            java.time.Instant.parse("2026-11-30T06:30:00.001Z"),
            java.time.Instant.parse("2100-01-01T00:00:00Z"));
    for (int i = 0; i < instants.size(); i++) {
      String encoded = EtcdKeys.encodeFiring(instants.get(i));
      assertThat(EtcdKeys.decodeFiring(encoded)).isEqualTo(instants.get(i));
      if (i > 0) {
        assertThat(encoded).isGreaterThan(EtcdKeys.encodeFiring(instants.get(i - 1)));
      }
    }
  }
}
