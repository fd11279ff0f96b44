package dev.leasehold.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Settings checks (no I/O), driver settings, and its discovery as store type mongo. */
class MongoStoreFactoryTest {
  private final MongoStoreFactory factory = new MongoStoreFactory();

  private static StoreSettings url(String url) {
    return StoreSettings.of("mongo", url);
  }

  private static StoreSettings withOptions(Map<String, String> options) {
    return new StoreSettings(
        "mongo", "mongodb://db1/app", List.of(), null, null, null, null, options);
  }

  @Test
  void validUrlsPass() {
    assertThat(factory.validate(url("mongodb://localhost"))).isNull();
    assertThat(factory.validate(url("mongodb://db1:27017,db2:27017,db3/app?replicaSet=rs0")))
        .isNull();
    assertThat(factory.validate(url("mongodb://u:p%40ss@db1/app?tls=true&authSource=admin")))
        .isNull();
    // no DNS lookup while validating: this host does not exist
    assertThat(factory.validate(url("mongodb+srv://cluster0.nowhere.invalid/app"))).isNull();
  }

  @Test
  void badUrlsNameTheField() {
    for (String bad :
        new String[] {
          null, "", "localhost:27017", "redis://localhost", "mongodb://", "mongodb://h/a?tls=maybe"
        }) {
      assertThat(factory.validate(url(bad))).as("url %s", bad).startsWith("store.url: ");
    }
  }

  @Test
  void aPasswordNeverAppearsInAProblem() {
    String problem = factory.validate(url("mongodb://user:s3cret@host/app?tls=maybe"));
    assertThat(problem).startsWith("store.url: ").doesNotContain("s3cret");
  }

  @Test
  void credentialsAreCheckedWithoutConnecting() {
    StoreSettings both =
        new StoreSettings(
            "mongo", "mongodb://u:p@db1/app", List.of(), "other", "pw", null, null, Map.of());
    assertThat(factory.validate(both)).startsWith("store.username: ");
    StoreSettings passwordOnly =
        new StoreSettings(
            "mongo", "mongodb://db1/app", List.of(), null, "pw", null, null, Map.of());
    assertThat(factory.validate(passwordOnly)).startsWith("store.password: ");
  }

  @Test
  void optionsAreChecked() {
    assertThat(factory.validate(withOptions(Map.of("collection", "locks")))).isNull();
    assertThat(factory.validate(withOptions(Map.of("collection", "bad$name"))))
        .startsWith("store.options.collection: ");
    assertThat(factory.validate(withOptions(Map.of("execution-collection", "system.x"))))
        .startsWith("store.options.execution-collection: ");
    assertThat(factory.validate(withOptions(Map.of("execution-collection", "leasehold_locks"))))
        .startsWith("store.options.execution-collection: ");
    assertThat(factory.validate(withOptions(Map.of("history-retention", "forever"))))
        .startsWith("store.options.history-retention: ");
    StoreSettings badPrefix =
        new StoreSettings("mongo", "mongodb://db1/app", List.of(), null, null, "a b", null, null);
    assertThat(factory.validate(badPrefix)).startsWith("store.key-prefix: ");
  }

  @Test
  void databaseCollectionsAndRetentionHaveDefaults() {
    MongoStoreConfig config = MongoStoreConfig.parse(url("mongodb://db1"));
    assertThat(config.database()).isEqualTo("leasehold");
    assertThat(config.leaseCollection()).isEqualTo("leasehold_locks");
    assertThat(config.executionCollection()).isEqualTo("leasehold_executions");
    assertThat(config.historyRetention()).isEqualTo(Duration.ofDays(30));
    StoreSettings prefixed =
        new StoreSettings("mongo", "mongodb://db1/ops", List.of(), null, null, "lh_", null, null);
    MongoStoreConfig custom = MongoStoreConfig.parse(prefixed);
    assertThat(custom.database()).isEqualTo("ops");
    assertThat(custom.leaseCollection()).isEqualTo("lh_locks");
    assertThat(custom.executionCollection()).isEqualTo("lh_executions");
  }

  @Test
  void timeoutsConcernsAndCredentialsReachTheDriver() {
    StoreSettings settings =
        new StoreSettings(
            "mongo",
            "mongodb://db1/ops?tls=true&authSource=users&connectTimeoutMS=60000&w=1&journal=false",
            List.of(),
            "svc",
            "s3cret",
            null,
            Duration.ofMillis(1500),
            Map.of());
    MongoStoreConfig config = MongoStoreConfig.parse(settings);
    MongoClientSettings driver = config.clientSettings();
    assertThat(driver.getClusterSettings().getServerSelectionTimeout(TimeUnit.MILLISECONDS))
        .isEqualTo(1500);
    assertThat(driver.getSocketSettings().getConnectTimeout(TimeUnit.MILLISECONDS)).isEqualTo(1500);
    assertThat(driver.getSocketSettings().getReadTimeout(TimeUnit.MILLISECONDS)).isEqualTo(1500);
    assertThat(driver.getWriteConcern().getWString()).isEqualTo("majority");
    assertThat(driver.getWriteConcern().getWTimeout(TimeUnit.MILLISECONDS)).isEqualTo(750);
    assertThat(driver.getWriteConcern().getJournal()).isTrue();
    assertThat(driver.getReadConcern().getLevel()).hasToString("MAJORITY");
    assertThat(driver.getSslSettings().isEnabled()).isTrue();
    assertThat(driver.getCredential().getUserName()).isEqualTo("svc");
    assertThat(driver.getCredential().getSource()).isEqualTo("users");
    assertThat(config.toString()).doesNotContain("s3cret");
  }

  @Test
  void openingDoesNoIoAndPingReachesTheServer() {
    try (WireServer server = WireServer.start();
        StoreBackend backend = factory.open(server.settings("ping"))) {
      backend.ping();
    }
  }

  @Test
  void anSrvHostWithoutDnsRecordsGivesAStoreExceptionNotAHangOrAHeldAnswer() {
    StoreSettings settings =
        WireServer.settings(
            "mongodb+srv://cluster0.nowhere.invalid/app", Duration.ofMillis(500), Map.of());
    try (StoreBackend backend = factory.open(settings)) {
      assertThatThrownBy(
              () -> backend.leaseStore().acquire("srv", "node-a", Duration.ofSeconds(30)))
          .isInstanceOf(LeaseStoreException.class);
    } catch (LeaseStoreException e) {
      // a resolver that reports the missing TXT record fails already at open: also fail closed
      assertThat(e).hasMessageContaining("store.url");
    }
  }

  @Test
  void theFactoryIsFoundThroughLeaseholdsServiceType() {
    List<StoreFactory> found =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(MongoStoreFactory.class::isInstance)
            .toList();
    assertThat(found).hasSize(1);
    assertThat(found.get(0).types()).isEqualTo(factory.types());
  }
}
