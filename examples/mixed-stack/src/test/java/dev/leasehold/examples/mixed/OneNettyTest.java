package dev.leasehold.examples.mixed;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.googlejavaformat.java.Formatter;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import io.netty.util.Version;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

/**
 * In one JVM, on the class path this project resolved: one Netty for all of its users, Lettuce (the
 * Redis store) claiming a firing on the machine's Redis, Reactor Netty serving and fetching one
 * HTTP request, and Guava's users (Guice through leasehold-guice, google-java-format) working.
 */
class OneNettyTest {

  @Test
  void oneNettyCarriesTheRedisStoreAndReactorNetty() throws Exception {
    assertThat(
            Version.identify().values().stream()
                .filter(v -> v.artifactId().startsWith("netty-"))
                .map(Version::artifactVersion)
                .distinct())
        .hasSize(1);

    StoreFactory redis =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(f -> f.types().contains("redis"))
            .findFirst()
            .orElseThrow();
    String prefix = "mixed-stack-" + UUID.randomUUID() + ":";
    try (StoreBackend backend =
        redis.open(
            new StoreSettings(
                "redis",
                "redis://127.0.0.1:6379",
                List.of(),
                null,
                null,
                prefix,
                null,
                Map.of()))) {
      LeaseStore store = backend.leaseStore();
      Instant firing = Instant.parse("2026-12-01T12:00:00Z");
      Lease lease = store.claim("report", firing, "node-a", Duration.ofSeconds(30)).orElseThrow();
      assertThat(store.claim("report", firing, "node-b", Duration.ofSeconds(30))).isEmpty();
      store.release(lease);
    }

    DisposableServer server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .route(routes -> routes.get("/fence", (req, res) -> res.sendString(Mono.just("7"))))
            .bindNow();
    try {
      String body =
          HttpClient.create()
              .get()
              .uri("http://127.0.0.1:" + server.port() + "/fence")
              .responseContent()
              .aggregate()
              .asString()
              .block(Duration.ofSeconds(30));
      assertThat(body).isEqualTo("7");
    } finally {
      server.disposeNow();
    }
  }

  @Test
  void guavaUsersShareOneGuava() throws Exception {
    assertThat(new Formatter().formatSource("class A{}")).isEqualTo("class A {}\n");
    assertThat(ImmutableList.of(1, 2)).hasSize(2);
    assertThat(
            com.google.inject.Guice.createInjector(
                    new dev.leasehold.guice.ClusterExclusiveModule("n"),
                    b -> b.bind(LeaseStore.class).toProvider(() -> null))
                .getBindings())
        .isNotEmpty();
  }
}
