package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configuration on real stores (H2 in memory, the MariaDB and Redis of the machine): the
 * store comes from {@code leasehold.store.*}, its adapter is found on the class path, the {@link
 * LeaseStore} bean claims firings, the health indicator asks the store; bad settings stop the start
 * with one line naming the key.
 */
class LeaseholdAutoConfigurationTest {
  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(LeaseholdAutoConfiguration.class));

  static String[] store(String type) {
    String id = UUID.randomUUID().toString().substring(0, 8);
    return switch (type) {
      case "h2" ->
          new String[] {
            "leasehold.store.type=h2",
            "leasehold.store.url=jdbc:h2:mem:starter-" + id + ";DB_CLOSE_DELAY=-1"
          };
      case "mariadb" ->
          new String[] {
            "leasehold.store.type=mariadb",
            "leasehold.store.url=jdbc:mariadb://127.0.0.1:3306/test",
            "leasehold.store.username=root",
            "leasehold.store.password="
          };
      case "redis" ->
          new String[] {
            "leasehold.store.type=redis",
            "leasehold.store.url=redis://127.0.0.1:6379",
            "leasehold.store.key-prefix=starter-test-" + id + ":"
          };
      default -> throw new IllegalArgumentException(type);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "mariadb", "redis"})
  void theLeaseStoreBeanClaimsFiringsOnTheConfiguredStore(String type) {
    RUNNER
        .withPropertyValues(store(type))
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(LeaseStore.class);
              LeaseStore store = context.getBean(LeaseStore.class);
              String job = "starter-" + UUID.randomUUID().toString().substring(0, 8);
              Instant firing = Instant.parse("2026-12-01T10:00:00Z");

              Lease won = store.claim(job, firing, "node-a", Duration.ofSeconds(30)).orElseThrow();
              assertThat(store.claim(job, firing, "node-b", Duration.ofSeconds(30))).isEmpty();
              store.release(won);
              assertThat(store.claim(job, firing, "node-b", Duration.ofSeconds(30))).isEmpty();
              assertThat(store.claim(job, firing.plusSeconds(1), "node-b", Duration.ofSeconds(30)))
                  .hasValueSatisfying(l -> assertThat(l.fence()).isGreaterThan(won.fence()));

              HealthIndicator health =
                  context.getBean("leaseholdHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              assertThat(health.health().getDetails()).containsEntry("store", type);
            });
  }

  @Test
  void anUnknownStoreTypeStopsTheStartListingTheKnownOnes() {
    RUNNER
        .withPropertyValues("leasehold.store.type=cassandra")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith(
                        "leasehold.store.type: unknown store type 'cassandra'; known: ")
                    .hasMessageContaining("h2, mariadb")
                    .hasMessageContaining("redis"));
  }

  @Test
  void anUnknownStoreKeyStopsTheStart() {
    RUNNER
        .withPropertyValues(store("h2"))
        .withPropertyValues("leasehold.store.passwrd=x")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("leasehold.store.passwrd"));
  }

  @Test
  void badSettingsAreTheFactorysOneLineNamingTheKey(@TempDir Path dir) throws Exception {
    RUNNER
        .withPropertyValues("leasehold.store.type=redis", "leasehold.store.url=http://nowhere")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("leasehold.store.url: "));
    Path secret = Files.writeString(dir.resolve("password"), "s3cret\n");
    RUNNER
        .withPropertyValues(store("mariadb"))
        .withPropertyValues(
            "leasehold.store.password=other", "leasehold.store.password-file=" + secret)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "leasehold.store.password-file: give either password or password-file,"
                            + " not both"));
  }
}
