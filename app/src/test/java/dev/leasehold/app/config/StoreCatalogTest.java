package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the application knows about stores comes from the store factories on the class path: the
 * default store and URL, the drivers' log levels and packages, each store's options.
 */
class StoreCatalogTest {
  private final StoreCatalog stores = StoreCatalog.discovered();

  @Test
  void theEmbeddedH2DatabaseIsTheDefaultStore() {
    assertThat(stores.defaultType()).isEqualTo("h2");
    assertThat(stores.defaultUrl("h2")).isEqualTo("jdbc:h2:file:./data/leasehold");
    assertThat(stores.defaultUrl("postgres")).isNull();
    assertThat(stores.defaultUrl("no-such-store")).isNull();
  }

  @Test
  void everyAdapterOfThisRepositoryIsFound() {
    assertThat(stores.types("dev.leasehold.store."))
        .containsExactly(
            "etcd",
            "h2",
            "mariadb",
            "mongo",
            "mysql",
            "postgres",
            "postgresql",
            "redis",
            "redlock",
            "zookeeper");
  }

  @Test
  void theDriversThatAreChattyAtInfoLogWarningsOnly() {
    assertThat(stores.logLevels())
        .containsAllEntriesOf(
            Map.of(
                "org.flywaydb", "WARN",
                "org.jooq", "WARN",
                "com.zaxxer.hikari", "WARN",
                "org.mongodb", "WARN",
                "io.lettuce", "WARN",
                "io.netty", "WARN",
                "reactor", "WARN",
                "org.apache.zookeeper.ClientCnxn", "ERROR"));
  }

  @Test
  void eachStoreNamesItsDrivers() {
    assertThat(stores.driverPackages())
        .contains(
            "io.lettuce",
            "com.mongodb",
            "org.bson",
            "org.apache.zookeeper",
            "org.apache.curator",
            "org.jooq",
            "org.flywaydb");
  }

  @Test
  void storeOptionsAreDeclaredWithTheirDefaults() {
    assertThat(stores.options().keySet())
        .contains(
            "pool-size",
            "history-max",
            "wait-replicas",
            "session-timeout",
            "collection",
            "execution-collection",
            "history-retention");
    assertThat(stores.options().get("session-timeout").path())
        .isEqualTo("store.options.session-timeout");
    assertThat(stores.options().get("wait-replicas").defaultText()).isEqualTo("0");
  }
}
