package dev.leasehold.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.store.Namespace;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The job-set digest: equal for the same jobs in any order, different for any changed field; keyed
 * by the namespace's key in the store, so equal across the replicas of a namespace, different
 * across namespaces and from an unkeyed hash of the same text.
 */
class JobDigestTest {
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
  private final InMemoryLeaseStore.Shared server = new InMemoryLeaseStore.Shared(Clock.systemUTC());

  private static String of(List<JobConfig> jobs) {
    return JobDigest.of(jobs, KEY);
  }

  private StoreBackend replica(String namespace) {
    return Namespace.of(namespace).wrap(server.client().backend());
  }

  private static JobConfig http(String name, Map<String, String> headers) {
    return new JobConfig(
        name,
        Schedule.every(Duration.ofMinutes(5), Duration.ZERO),
        Duration.ofSeconds(30),
        null,
        null,
        null,
        new JobAction.Http("POST", URI.create("http://127.0.0.1:9/x"), headers, "", null));
  }

  private static JobConfig cron(String name, String expression) {
    return new JobConfig(
        name,
        Schedule.cron(expression, ZoneOffset.UTC),
        Duration.ofSeconds(30),
        null,
        null,
        null,
        new JobAction.JavaClass("x.Y"));
  }

  @Test
  void theSameJobsInAnyOrderAndMapOrderHaveOneDigest() {
    Map<String, String> ab = new LinkedHashMap<>();
    ab.put("A", "1");
    ab.put("B", "2");
    Map<String, String> ba = new LinkedHashMap<>();
    ba.put("B", "2");
    ba.put("A", "1");
    String one = of(List.of(http("a", ab), cron("b", "0 2 * * *")));
    String two = of(List.of(cron("b", "0 2 * * *"), http("a", ba)));
    assertThat(one).isEqualTo(two).startsWith("hmac:").hasSize("hmac:".length() + 16);
  }

  @Test
  void aChangedScheduleHeaderOrExtraJobChangesTheDigest() {
    String base = of(List.of(http("a", Map.of("A", "1")), cron("b", "0 2 * * *")));
    assertThat(of(List.of(http("a", Map.of("A", "1")), cron("b", "0 3 * * *")))).isNotEqualTo(base);
    assertThat(of(List.of(http("a", Map.of("A", "2")), cron("b", "0 2 * * *")))).isNotEqualTo(base);
    assertThat(
            of(
                List.of(
                    http("a", Map.of("A", "1")), cron("b", "0 2 * * *"), cron("c", "* * * * *"))))
        .isNotEqualTo(base);
  }

  @Test
  void theDigestIsNotTheUnkeyedHashOfTheSameText() {
    List<JobConfig> jobs = List.of(http("a", Map.of("X-Pin", "1234")));
    String keyed = of(jobs);
    String unkeyed = JobDigest.sha256(JobDigest.text(jobs));
    assertThat(keyed.substring("hmac:".length()))
        .isNotEqualTo(unkeyed.substring("sha256:".length()));
    assertThat(JobDigest.of(jobs, "another key of thirty-two bytes!".getBytes()))
        .as("another key, another digest")
        .isNotEqualTo(keyed);
  }

  @Test
  void twoReplicasOfOneNamespaceAgreeAndTwoNamespacesDiffer() {
    List<JobConfig> jobs = List.of(http("a", Map.of("X-Pin", "1234")), cron("b", "0 2 * * *"));
    StoreBackend first = replica("shop");
    StoreBackend second = replica("shop");
    String daemon = JobDigest.following(() -> jobs, DigestKey.of(first)).get();
    String secondDaemon = JobDigest.following(() -> jobs, DigestKey.of(second)).get();
    String cli = DigestKey.digest(replica("shop"), jobs);
    assertThat(daemon).startsWith("hmac:").isEqualTo(secondDaemon).isEqualTo(cli);
    assertThat(DigestKey.digest(replica("billing"), jobs))
        .as("another namespace has a key of its own")
        .isNotEqualTo(daemon);
    assertThat(DigestKey.digest(server.client().backend(), jobs))
        .as("no namespace has a key of its own too")
        .isNotEqualTo(daemon);

    String stored =
        first.journal().orElseThrow().putIfAbsent(DigestKey.NAME, "not the key anyone reads");
    assertThat(java.util.Base64.getDecoder().decode(stored)).hasSize(32);
    assertThat(daemon).doesNotContain(stored);
    assertThat(DigestKey.of(first).get()).hasValueSatisfying(k -> assertThat(k).hasSize(32));
  }

  @Test
  void aStoreWithoutAJournalGivesNoDigestAndNoDrift() {
    assertThat(JobDigest.following(() -> List.of(cron("b", "0 2 * * *")), Optional::empty).get())
        .isEqualTo(JobDigest.UNKEYED);
  }

  @Test
  void withoutSecretsLeavesOutHeaderAndEnvironmentValuesButNotTheirNames() {
    String one = JobDigest.withoutSecrets(List.of(http("a", Map.of("X-Pin", "1234"))));
    assertThat(one).doesNotContain("1234").contains("X-Pin");
    assertThat(JobDigest.withoutSecrets(List.of(http("a", Map.of("X-Pin", "9999")))))
        .isEqualTo(one);
  }

  @Test
  void aFollowingDigestChangesWithTheListItIsGivenAndOnlyThen() {
    List<JobConfig> before = List.of(cron("b", "0 2 * * *"));
    List<JobConfig> after = List.of(cron("b", "0 3 * * *"));
    AtomicReference<List<JobConfig>> current = new AtomicReference<>(before);
    AtomicInteger reads = new AtomicInteger();
    AtomicInteger keys = new AtomicInteger();
    Supplier<String> digest =
        JobDigest.following(
            () -> {
              reads.incrementAndGet();
              return current.get();
            },
            () -> {
              keys.incrementAndGet();
              return Optional.of(KEY);
            });

    assertThat(digest.get()).isEqualTo(of(before));
    assertThat(digest.get()).isEqualTo(of(before));
    current.set(after); // a reload
    assertThat(digest.get()).isEqualTo(of(after));
    assertThat(reads).hasValue(3);
    assertThat(keys).as("the key is asked for once per digest computed").hasValue(2);
  }
}
