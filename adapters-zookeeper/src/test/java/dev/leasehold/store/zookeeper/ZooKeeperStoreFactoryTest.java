package dev.leasehold.store.zookeeper;

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

/** Settings checks and wiring; no server needed (an unreachable ensemble is opened on purpose). */
class ZooKeeperStoreFactoryTest {
  private final ZooKeeperStoreFactory factory = new ZooKeeperStoreFactory();

  private static StoreSettings url(String url) {
    return StoreSettings.of("zookeeper", url);
  }

  private static StoreSettings settings(
      String prefix, String user, String password, Duration timeout, Map<String, String> options) {
    return new StoreSettings(
        "zookeeper", "zk://127.0.0.1:2181", List.of(), user, password, prefix, timeout, options);
  }

  @Test
  void isFoundThroughTheStoreFactoryServiceType() {
    assertThat(ServiceLoader.load(StoreFactory.class).stream().map(ServiceLoader.Provider::type))
        .contains(ZooKeeperStoreFactory.class);
    assertThat(factory.types()).containsExactly("zookeeper");
  }

  @Test
  void acceptsEveryDocumentedUrlForm() {
    for (String u :
        List.of(
            "zk://127.0.0.1:2181",
            "zk://zk1:2181,zk2:2181,zk3:2181/leasehold",
            "zk://zk.example.org/apps/leasehold",
            "zk://[::1]:2181/",
            "zk://localhost")) {
      assertThat(factory.validate(url(u))).as(u).isNull();
    }
  }

  @Test
  void namesTheFieldOfABadUrl() {
    assertThat(factory.validate(url(null))).startsWith("store.url: missing");
    assertThat(factory.validate(url("http://127.0.0.1:2181"))).startsWith("store.url: expected");
    assertThat(factory.validate(url("zk://"))).startsWith("store.url: no host");
    assertThat(factory.validate(url("zk://a:2181,,b:2181"))).startsWith("store.url: bad host");
    assertThat(factory.validate(url("zk://a:port"))).startsWith("store.url: bad host");
    assertThat(factory.validate(url("zk://a:2181/bad chroot"))).startsWith("store.url: bad chroot");
    assertThat(factory.validate(url("zk://a:2181/x//y"))).startsWith("store.url: bad chroot");
    StoreSettings withUrls =
        new StoreSettings(
            "zookeeper", "zk://a", List.of("zk://b"), null, null, null, null, Map.of());
    assertThat(factory.validate(withUrls)).startsWith("store.urls:");
    assertThat(factory.validate(StoreSettings.of("zk", "zk://a"))).startsWith("store.type:");
  }

  @Test
  void credentialsBelongInTheirOwnFieldsAndAreNeverShown() {
    String problem = factory.validate(url("zk://user:hunter2@127.0.0.1:2181"));
    assertThat(problem).startsWith("store.url: put credentials").doesNotContain("hunter2");
    assertThat(factory.validate(url("zkx://user:hunter2@127.0.0.1:2181")))
        .doesNotContain("hunter2");
  }

  @Test
  void checksKeyPrefixCredentialsTimeoutsAndOptions() {
    assertThat(factory.validate(settings("/absolute", null, null, null, Map.of())))
        .startsWith("store.key-prefix:");
    assertThat(factory.validate(settings("a b", null, null, null, Map.of())))
        .startsWith("store.key-prefix:");
    assertThat(factory.validate(settings(null, "u", null, null, Map.of())))
        .startsWith("store.username:");
    assertThat(factory.validate(settings(null, null, "p", null, Map.of())))
        .startsWith("store.password:");
    assertThat(factory.validate(settings(null, null, null, Duration.ZERO, Map.of())))
        .startsWith("store.command-timeout:");
    assertThat(
            factory.validate(settings(null, null, null, null, Map.of("session-timeout", "soon"))))
        .startsWith("store.options.session-timeout:");
    assertThat(factory.validate(settings(null, null, null, null, Map.of("session-timeout", "1ms"))))
        .startsWith("store.options.session-timeout:");
    assertThat(factory.validate(settings(null, null, null, null, Map.of("history-max", "-1"))))
        .startsWith("store.options.history-max:");
    assertThat(
            factory.validate(
                settings(
                    "apps/leasehold",
                    "u",
                    "p",
                    Duration.ofSeconds(3),
                    Map.of("session-timeout", "20s", "history-max", "50"))))
        .isNull();
  }

  @Test
  void everyProblemIsOneLine() {
    for (StoreSettings s :
        List.of(url(null), url("x"), url("zk://a b"), settings("a b", "u", null, null, Map.of()))) {
      assertThat(factory.validate(s)).doesNotContain("\n");
    }
  }

  @Test
  void openingBadSettingsThrowsTheSameProblem() {
    assertThatThrownBy(() -> factory.open(url("http://x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("store.url: expected");
  }

  @Test
  void openingDoesNotWaitAndAnUnreachableEnsembleIsAStoreError() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    StoreSettings settings =
        new StoreSettings(
            "zookeeper",
            "zk://127.0.0.1:" + port + "/x",
            List.of(),
            null,
            null,
            null,
            Duration.ofMillis(500),
            Map.of());
    try (StoreBackend backend = factory.open(settings)) {
      assertThatThrownBy(backend::ping)
          .isInstanceOf(StoreUnreachableException.class)
          .hasMessage(
              "ZooKeeper store: cannot connect to ZooKeeper at 127.0.0.1:"
                  + port
                  + ": connection refused");
      assertThatThrownBy(() -> backend.leaseStore().inspect("some-job"))
          .isInstanceOf(LeaseStoreException.class);
    }
  }
}
