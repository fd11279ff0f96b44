package dev.leasehold.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.node.RedisUris;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Settings checks and wiring; no server needed except where a test opens a store on purpose. */
class RedisStoreFactoryTest {
  private final RedisStoreFactory factory = new RedisStoreFactory();

  private static StoreSettings redis(String url) {
    return StoreSettings.of("redis", url);
  }

  private static StoreSettings redlock(String... urls) {
    return new StoreSettings("redlock", null, List.of(urls), null, null, null, null, Map.of());
  }

  @Test
  void servesRedisAndRedlock() {
    assertThat(factory.types()).containsExactlyInAnyOrder("redis", "redlock");
  }

  @Test
  void acceptsEveryDocumentedUrlForm() {
    for (String url :
        List.of(
            "redis://127.0.0.1:6379",
            "redis://localhost",
            "redis://127.0.0.1:6379/3",
            "rediss://redis.example.org:6380/0",
            "redis://:secret@127.0.0.1:6379",
            "redis://leasehold:secret@127.0.0.1:6379/2",
            "redis-sentinel://s1:26379,s2:26379,s3:26379/0#mymaster",
            "redis-cluster://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379",
            "rediss-cluster://leasehold:secret@c1.example.org:6380,c2.example.org:6380/0")) {
      assertThat(factory.validate(redis(url))).as(url).isNull();
    }
  }

  @Test
  void clusterUrlsAreCheckedAndReadAsSeeds() {
    assertThat(factory.validate(redis("redis-cluster://10.0.0.1:6379/2")))
        .startsWith("store.url: a Redis Cluster has only database 0");
    assertThat(factory.validate(redis("redis-cluster://")))
        .startsWith("store.url: missing seed nodes");
    assertThat(factory.validate(redis("redis-cluster://h1:6379,,h2:6379")))
        .startsWith("store.url: expected host:port seeds");
    assertThat(factory.validate(redlock("redis-cluster://h1:1", "redis://h2:1", "redis://h3:1")))
        .startsWith("store.urls[0]: expected");
    List<RedisURI> seeds =
        RedisUris.clusterSeeds(
            "rediss-cluster://u:secret@c1:6380,c2:6381",
            new StoreSettings("redis", null, null, null, null, null, Duration.ofSeconds(2), null));
    assertThat(seeds).extracting(RedisURI::getHost).containsExactly("c1", "c2");
    assertThat(seeds).extracting(RedisURI::getPort).containsExactly(6380, 6381);
    assertThat(seeds).allMatch(RedisURI::isSsl);
    assertThat(RedisUris.describeCluster(seeds)).isEqualTo("cluster c1:6380,c2:6381");
  }

  @Test
  void waitReplicasIsAWholeNumberAndNotForACluster() {
    StoreSettings bad =
        new StoreSettings(
            "redis", "redis://h:1", null, null, null, null, null, Map.of("wait-replicas", "one"));
    assertThat(factory.validate(bad))
        .isEqualTo(
            "store.options.wait-replicas: expected a whole number of replicas from 0 to 99, got"
                + " one");
    assertThatThrownBy(() -> RedisLeaseStore.open(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("store.options.wait-replicas");
    assertThat(
            factory.validate(
                new StoreSettings(
                    "redis",
                    "redis://h:1",
                    null,
                    null,
                    null,
                    null,
                    null,
                    Map.of("wait-replicas", "2"))))
        .isNull();
    assertThat(
            factory.validate(
                new StoreSettings(
                    "redis",
                    "redis-cluster://h:1",
                    null,
                    null,
                    null,
                    null,
                    null,
                    Map.of("wait-replicas", "1"))))
        .startsWith("store.options.wait-replicas: not supported with a redis-cluster:// URL");
    assertThat(
            factory.validate(
                new StoreSettings(
                    "redlock",
                    null,
                    List.of("redis://a:1", "redis://b:1", "redis://c:1"),
                    null,
                    null,
                    null,
                    null,
                    Map.of("wait-replicas", "-1"))))
        .startsWith("store.options.wait-replicas");
  }

  @Test
  void namesTheFieldOfABadUrl() {
    assertThat(factory.validate(redis(null))).startsWith("store.url: missing");
    assertThat(factory.validate(redis("http://127.0.0.1:6379"))).startsWith("store.url: expected");
    assertThat(factory.validate(redis("jdbc:h2:mem:x"))).startsWith("store.url: expected");
    assertThat(factory.validate(redis("redis-sentinel://s1:26379/0")))
        .startsWith("store.url: a Sentinel URL names its master");
    assertThat(factory.validate(StoreSettings.of("memcached", "redis://x")))
        .startsWith("store.type:");
  }

  @Test
  void aBadUrlNeverShowsItsPassword() {
    String problem = factory.validate(redis("http://user:hunter2@127.0.0.1:6379"));
    assertThat(problem).doesNotContain("hunter2").contains("***");
  }

  @Test
  void checksKeyPrefixCredentialsTimeoutAndOptions() {
    String url = "redis://127.0.0.1:6379";
    assertThat(factory.validate(settings(url, "lh:{x}:", null, null, null, Map.of())))
        .startsWith("store.key-prefix:");
    assertThat(factory.validate(settings(url, null, "user", null, null, Map.of())))
        .startsWith("store.username:");
    assertThat(factory.validate(settings(url, null, null, null, Duration.ZERO, Map.of())))
        .startsWith("store.command-timeout:");
    assertThat(factory.validate(settings(url, null, null, null, null, Map.of("history-max", "0"))))
        .startsWith("store.options.history-max:");
    assertThat(
            factory.validate(settings(url, "app1:", "u", "p", null, Map.of("history-max", "50"))))
        .isNull();
  }

  private static StoreSettings settings(
      String url,
      String prefix,
      String user,
      String password,
      Duration timeout,
      Map<String, String> options) {
    return new StoreSettings("redis", url, List.of(), user, password, prefix, timeout, options);
  }

  @Test
  void redlockNeedsThreeOrFiveDistinctPlainMasters() {
    assertThat(factory.validate(redlock("redis://a:6379", "redis://b:6379", "redis://c:6379")))
        .isNull();
    assertThat(
            factory.validate(
                redlock("redis://a", "redis://b", "redis://c", "rediss://d:6380", "redis://e/1")))
        .isNull();
    assertThat(factory.validate(redlock("redis://a:6379", "redis://b:6379")))
        .startsWith("store.urls: Redlock needs 3 or 5");
    assertThat(factory.validate(redlock("redis://a", "redis://b", "redis://c", "redis://d")))
        .startsWith("store.urls: Redlock needs 3 or 5");
    assertThat(factory.validate(redlock("redis://a:6379", "redis://b:6379", "redis://A:6379/1")))
        .startsWith("store.urls[2]: same server as store.urls[0]");
    assertThat(
            factory.validate(
                redlock("redis://a:6379", "redis-sentinel://s:26379/0#m", "redis://c:6379")))
        .startsWith("store.urls[1]: expected redis://");
  }

  @Test
  void openRefusesBadSettingsWithIllegalArgument() {
    assertThatThrownBy(() -> factory.open(redlock("redis://a:6379")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("store.urls:");
  }

  @Test
  void credentialsFromSettingsWinAndTheTimeoutIsApplied() {
    StoreSettings settings =
        new StoreSettings(
            "redis",
            "rediss://old:oldpw@h.example:6380/4",
            List.of(),
            "leasehold",
            "s3cret",
            null,
            Duration.ofMillis(750),
            Map.of());
    RedisURI uri = RedisUris.parse(settings.url(), settings);
    RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
    assertThat(credentials.getUsername()).isEqualTo("leasehold");
    assertThat(new String(credentials.getPassword())).isEqualTo("s3cret");
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getDatabase()).isEqualTo(4);
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(RedisUris.describe(uri)).isEqualTo("h.example:6380/4").doesNotContain("s3cret");
  }

  @Test
  void sentinelUrlsKeepTheirMasterAndSentinels() {
    RedisURI uri =
        RedisUris.parse(
            "redis-sentinel://s1:26379,s2:26380/1#cache", StoreSettings.of("redis", ""));
    assertThat(uri.getSentinelMasterId()).isEqualTo("cache");
    assertThat(uri.getSentinels()).hasSize(2);
    assertThat(uri.getDatabase()).isEqualTo(1);
    assertThat(RedisUris.describe(uri)).isEqualTo("master cache via sentinels s1:26379,s2:26380");
  }

  @Test
  void theFactoryIsFoundThroughLeaseholdsServiceType() {
    List<StoreFactory> found =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(RedisStoreFactory.class::isInstance)
            .toList();
    assertThat(found).hasSize(1);
    assertThat(found.get(0).types()).isEqualTo(factory.types());
  }

  @Test
  void pingFailsReadablyWhenNothingListens() throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (StoreBackend backend = factory.open(redis("redis://127.0.0.1:" + port))) {
      assertThatThrownBy(backend::ping)
          .isInstanceOf(dev.leasehold.core.lease.StoreUnreachableException.class)
          .hasMessage(
              "Redis store: cannot connect to Redis at 127.0.0.1:"
                  + port
                  + "/0: connection refused");
      assertThatThrownBy(() -> backend.leaseStore().acquire("x", "node-a", Duration.ofSeconds(1)))
          .isInstanceOf(LeaseStoreException.class)
          .hasMessageContaining("127.0.0.1:" + port);
    }
  }
}
