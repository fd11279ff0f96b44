package dev.leasehold.app.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.core.schedule.Exclusion;
import dev.leasehold.core.schedule.Schedule;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The job-set digest: equal for the same jobs in any order, different for any changed field. */
class JobDigestTest {
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
    String one = JobDigest.of(List.of(http("a", ab), cron("b", "0 2 * * *")));
    String two = JobDigest.of(List.of(cron("b", "0 2 * * *"), http("a", ba)));
    assertThat(one).isEqualTo(two).startsWith("sha256:").hasSize("sha256:".length() + 16);
  }

  @Test
  void aChangedScheduleHeaderOrExtraJobChangesTheDigest() {
    String base = JobDigest.of(List.of(http("a", Map.of("A", "1")), cron("b", "0 2 * * *")));
    assertThat(JobDigest.of(List.of(http("a", Map.of("A", "1")), cron("b", "0 3 * * *"))))
        .isNotEqualTo(base);
    assertThat(JobDigest.of(List.of(http("a", Map.of("A", "2")), cron("b", "0 2 * * *"))))
        .isNotEqualTo(base);
    assertThat(
            JobDigest.of(
                List.of(
                    http("a", Map.of("A", "1")), cron("b", "0 2 * * *"), cron("c", "* * * * *"))))
        .isNotEqualTo(base);
  }

  @Test
  void aChangedExclusionWindowChangesTheDigestThoughTheirCountStays() {
    JobConfig christmas = excluding("2026-12-25");
    assertThat(JobDigest.of(List.of(christmas)))
        .isEqualTo(JobDigest.of(List.of(excluding("2026-12-25"))))
        .isNotEqualTo(JobDigest.of(List.of(excluding("2026-12-26"))));
  }

  private static JobConfig excluding(String date) {
    return new JobConfig(
        "a",
        Schedule.windowed(
            Schedule.every(Duration.ofMinutes(5), Duration.ZERO),
            null,
            null,
            List.of(new Exclusion.Dates(List.of(date), ZoneOffset.UTC))),
        Duration.ofSeconds(30),
        null,
        null,
        null,
        new JobAction.JavaClass("x.Y"));
  }

  @Test
  void aFollowingDigestChangesWithTheListItIsGivenAndOnlyThen() {
    List<JobConfig> before = List.of(cron("b", "0 2 * * *"));
    List<JobConfig> after = List.of(cron("b", "0 3 * * *"));
    AtomicReference<List<JobConfig>> current = new AtomicReference<>(before);
    AtomicInteger reads = new AtomicInteger();
    Supplier<String> digest =
        JobDigest.following(
            () -> {
              reads.incrementAndGet();
              return current.get();
            });

    assertThat(digest.get()).isEqualTo(JobDigest.of(before));
    assertThat(digest.get()).isEqualTo(JobDigest.of(before));
    current.set(after); // a reload
    assertThat(digest.get()).isEqualTo(JobDigest.of(after));
    assertThat(reads).hasValue(3);
  }
}
