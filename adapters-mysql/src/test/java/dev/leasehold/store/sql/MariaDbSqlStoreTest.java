package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SQL store's own behaviour on MariaDB, and the {@code mysql} type on the MariaDB driver. */
class MariaDbSqlStoreTest extends SqlStoreTest {
  @Override
  protected TestDatabase freshDatabase() {
    return TestDatabase.mariaDb();
  }

  @Test
  void theMysqlTypeWithAJdbcMysqlUrlRunsOnTheMariaDbDriver() {
    String url = database.url().replace("jdbc:mariadb:", "jdbc:mysql:");
    StoreSettings mysql =
        new StoreSettings(
            "mysql", url, List.of(), "root", null, null, TestDatabase.TIMEOUT, Map.of());
    try (StoreBackend backend = new SqlStoreFactory().open(mysql)) {
      String name = "mysql-" + System.nanoTime();
      assertThat(backend.leaseStore().claim(name, Instant.EPOCH, "node-a", TestDatabase.TIMEOUT))
          .isPresent();
      assertThat(backend.leaseStore().inspect(name).orElseThrow().held()).isTrue();
    }
  }
}
