package dev.leasehold.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Store adapters are discovered through META-INF/services, each under its store.type names. */
class StoreModulesTest {
  @Test
  void everyAdapterOnTheClasspathRegistersItsTypes() {
    assertThat(StoreModules.discover().types())
        .contains("h2", "mysql", "mariadb", "postgres", "redis", "redlock", "mongo");
  }

  @Test
  void withoutAdaptersNoTypeIsKnown() {
    assertThat(StoreModules.of(java.util.List.of()).types()).isEmpty();
  }
}
