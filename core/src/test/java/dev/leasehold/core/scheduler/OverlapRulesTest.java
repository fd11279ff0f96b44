package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which firing may wait behind a run ({@link FiringRules#buffered}), per overlap policy, as a
 * table: no clock, no threads. An every-10-s job with a misfire grace of 30 s (the grace ends 31 s
 * after a firing, with the timer tolerance); firings and instants are seconds after 06:00:00.
 */
class OverlapRulesTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");

  private static Instant at(String seconds) {
    return seconds == null ? null : T0.plusSeconds(Long.parseLong(seconds));
  }

  @ParameterizedTest(name = "{0}: firing {1} behind {2} at {3}: waits {4}")
  @CsvSource({
    // policy,   firing, behind (the running firing), now, waits
    "SKIP,       10,     0,      12,  false",
    "SKIP,       10,     0,      11,  false",
    "BUFFER_ONE, 10,     0,      12,  true",
    "BUFFER_ONE, 10,     0,      41,  true",
    "BUFFER_ONE, 10,     0,      42,  false", // past its grace
    "BUFFER_ONE, 20,     0,      22,  false", // not the first firing after the run's
    "BUFFER_ONE, 10,     ,       12,  false", // the store names no watermark
    "BUFFER_ONE, 10,     10,     12,  false", // not after the running firing
    "REPLACE,    10,     0,      12,  true",
    "REPLACE,    10,     0,      41,  true",
    "REPLACE,    10,     0,      42,  false",
    "REPLACE,    20,     0,      22,  false",
    "REPLACE,    10,     ,       12,  false",
    "ALLOW,      10,     0,      12,  true",
    "ALLOW,      20,     0,      22,  true", // any firing: the lease is held between claim and seat
    "ALLOW,      10,     ,       12,  true",
    "ALLOW,      10,     0,      41,  true",
    "ALLOW,      10,     0,      42,  false",
  })
  void aFiringWaitsBehindARunAsItsOverlapPolicySays(
      Overlap overlap, String firing, String behind, String now, boolean waits) {
    JobDefinition job =
        new JobDefinition(
            "tick",
            Schedule.every(Duration.ofSeconds(10), Duration.ZERO),
            JobPolicy.of(Duration.ofSeconds(30), null, null, Duration.ofSeconds(30))
                .withOverlap(overlap),
            ctx -> JobResult.succeeded());
    assertThat(FiringRules.buffered(job, at(firing), at(behind), at(now))).isEqualTo(waits);
  }

  @ParameterizedTest(name = "{0}: one waits {1}, written {2}")
  @CsvSource({
    "SKIP,       false, skip",
    "BUFFER_ONE, true,  buffer-one",
    "REPLACE,    true,  replace",
    "ALLOW,      false, allow",
  })
  void eachPolicyHasItsLabel(Overlap overlap, boolean oneWaits, String label) {
    assertThat(overlap.buffersOne()).isEqualTo(oneWaits);
    assertThat(overlap.label()).isEqualTo(label);
  }
}
