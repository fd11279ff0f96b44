package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.store.StoreFactory;
import dev.leasehold.core.store.StoreSelfCheck;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Settings checks (no I/O) and discovery of the SQL store. */
class SqlStoreFactoryTest {
  private final SqlStoreFactory factory = new SqlStoreFactory();

  private static StoreSettings settings(String type, String url) {
    return StoreSettings.of(type, url);
  }

  @Test
  void theSelfCheckWaitsLessOnlyOnAnEmbeddedDatabase() {
    assertThat(factory.selfCheckTtl(settings("h2", "jdbc:h2:file:./data/x")))
        .isEqualTo(StoreSelfCheck.SHORTEST_TTL);
    assertThat(factory.selfCheckTtl(settings("h2", "jdbc:h2:mem:x")))
        .isEqualTo(StoreSelfCheck.SHORTEST_TTL);
    // a server's clock and a network in between: the longer TTL
    assertThat(factory.selfCheckTtl(settings("h2", "jdbc:h2:tcp://localhost/./data/x")))
        .isEqualTo(StoreSelfCheck.SHORT_TTL);
    assertThat(factory.selfCheckTtl(settings("mariadb", "jdbc:mariadb://localhost:3306/db")))
        .isEqualTo(StoreSelfCheck.SHORT_TTL);
    assertThat(factory.selfCheckTtl(settings("postgresql", "jdbc:postgresql://localhost/db")))
        .isEqualTo(StoreSelfCheck.SHORT_TTL);
  }

  @Test
  void servesEverySqlType() {
    assertThat(factory.types())
        .containsExactlyInAnyOrder("h2", "mysql", "mariadb", "postgres", "postgresql");
  }

  @Test
  void acceptsEachDatabasesUrls() {
    assertThat(factory.validate(settings("h2", null))).isNull();
    assertThat(factory.validate(settings("h2", "jdbc:h2:file:./data/x"))).isNull();
    assertThat(factory.validate(settings("h2", "jdbc:h2:mem:x"))).isNull();
    assertThat(factory.validate(settings("mysql", "jdbc:mysql://db:3306/app"))).isNull();
    assertThat(factory.validate(settings("mysql", "jdbc:mariadb://db:3306/app"))).isNull();
    assertThat(factory.validate(settings("mariadb", "jdbc:mariadb://db/app?sslMode=verify-full")))
        .isNull();
    assertThat(factory.validate(settings("postgres", "jdbc:postgresql://db/app"))).isNull();
    assertThat(factory.validate(settings("postgresql", "jdbc:postgresql://db/app"))).isNull();
  }

  @Test
  void aUrlOfAnotherDatabaseIsRefusedNamingTheField() {
    assertThat(factory.validate(settings("postgres", "jdbc:mariadb://db:3306/app")))
        .startsWith("store.url: ")
        .contains("postgres", "jdbc:postgresql://", "jdbc:mariadb://db:3306/app");
    assertThat(factory.validate(settings("h2", "jdbc:postgresql://db/app")))
        .startsWith("store.url: ");
    assertThat(factory.validate(settings("mysql", "mysql://db/app"))).startsWith("store.url: ");
  }

  @Test
  void aServerDatabaseNeedsAUrl() {
    assertThat(factory.validate(settings("mariadb", null)))
        .startsWith("store.url: required")
        .contains("jdbc:mariadb://");
    assertThat(factory.validate(settings("postgres", " "))).startsWith("store.url: required");
  }

  @Test
  void problemsNeverShowThePassword() {
    String problem =
        factory.validate(settings("postgres", "jdbc:mariadb://db/app?user=u&password=hunter2"));
    assertThat(problem).startsWith("store.url: ").doesNotContain("hunter2");
  }

  @Test
  void anUnknownTypeOrATimeoutOfZeroIsRefused() {
    assertThat(factory.validate(settings("oracle", "jdbc:oracle:thin:@db")))
        .startsWith("store.type: ");
    StoreSettings noTimeout =
        new StoreSettings("h2", null, List.of(), null, null, null, Duration.ZERO, Map.of());
    assertThat(factory.validate(noTimeout)).startsWith("store.command-timeout: ");
  }

  @Test
  void thePoolSizeIsAStoreOptionFromOneTo200() {
    assertThat(SqlStoreFactory.poolSize(settings("h2", null))).isEqualTo(SqlStoreFactory.POOL_SIZE);
    assertThat(SqlStoreFactory.poolSize(withOption("pool-size", "32"))).isEqualTo(32);
    assertThat(factory.validate(withOption("pool-size", " 200 "))).isNull();
    for (String bad : List.of("0", "201", "-1", "many", "")) {
      assertThat(factory.validate(withOption("pool-size", bad)))
          .isEqualTo("store.options.pool-size: expected a whole number from 1 to 200, got " + bad);
    }
  }

  private static StoreSettings withOption(String key, String value) {
    return new StoreSettings("h2", null, List.of(), null, null, null, null, Map.of(key, value));
  }

  @Test
  void openRefusesInvalidSettingsWithoutConnecting() {
    assertThatThrownBy(() -> factory.open(settings("postgres", "jdbc:h2:mem:x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("store.url: ");
  }

  @Test
  void fileDatabasesAreSharedBetweenProcessesUnlessTheUrlSaysOtherwise() {
    assertThat(SqlDialect.H2.driverUrl(null))
        .isEqualTo("jdbc:h2:file:./data/leasehold;AUTO_SERVER=TRUE");
    assertThat(SqlDialect.H2.driverUrl("jdbc:h2:file:/x;auto_server=false"))
        .isEqualTo("jdbc:h2:file:/x;auto_server=false");
    assertThat(SqlDialect.H2.driverUrl("jdbc:h2:mem:x")).isEqualTo("jdbc:h2:mem:x");
    assertThat(SqlDialect.MYSQL.driverUrl("jdbc:mysql://db/app?sslMode=trust"))
        .isEqualTo("jdbc:mysql://db/app?sslMode=trust&permitMysqlScheme");
  }

  @Test
  void theFactoryIsFoundThroughLeaseholdsServiceType() {
    List<StoreFactory> found =
        ServiceLoader.load(StoreFactory.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(SqlStoreFactory.class::isInstance)
            .toList();
    assertThat(found).hasSize(1);
    assertThat(found.get(0).types()).isEqualTo(factory.types());
  }
}
