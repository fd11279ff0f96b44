package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.hold.LeaseTiming;
import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The firing arithmetic as tables: no threads, no clock. Times are seconds after 06:00:00; the
 * schedule is "every 10 s" unless a row says otherwise, the skew allowance 2 s.
 */
class FiringRulesTest {
  private static final Instant T0 = Instant.parse("2026-11-30T06:00:00Z");
  private static final FiringRules RULES = new FiringRules(Duration.ofSeconds(2));
  private static final Schedule EVERY_10S = Schedule.every(Duration.ofSeconds(10), Duration.ZERO);

  private static Instant at(double seconds) {
    return T0.plusMillis(Math.round(seconds * 1000));
  }

  private static Optional<Instant> atOrNone(String seconds) {
    return seconds == null ? Optional.empty() : Optional.of(at(Double.parseDouble(seconds)));
  }

  @ParameterizedTest(name = "grace {0}s, firing {1}, now {2}: missed {3}")
  @CsvSource({
    // grace, firing, now, missed (grace + 1 s timer tolerance, strictly past it)
    "0,  10, 10,    false",
    "0,  10, 11,    false",
    "0,  10, 11.001, true",
    "30, 10, 41,    false",
    "30, 10, 41.5,  true",
    "60, 10, 5,     false",
  })
  void aFiringIsMissedStrictlyAfterItsGracePlusTheTimerTolerance(
      long grace, double firing, double now, boolean missed) {
    assertThat(FiringRules.isMissed(Duration.ofSeconds(grace), at(firing), at(now)))
        .isEqualTo(missed);
  }

  @ParameterizedTest(name = "firing {0}, now {1}: older than the skew allowance {2}")
  @CsvSource({
    "10, 10,    false",
    "10, 11.9,  false",
    "10, 12, false",
    "10, 12.001, true",
    "10, 30, true",
  })
  void theSkewAllowanceIsOneRuleForWaitingAndSkipping(double firing, double now, boolean older) {
    assertThat(RULES.olderThanSkew(at(firing), at(now))).isEqualTo(older);
  }

  @ParameterizedTest(name = "timer for {0} at {1}: claim {2}")
  @CsvSource({
    // on time or a little late: the firing itself
    "10, 10,   10",
    "10, 11.5, 10",
    // later than the skew allowance, no younger firing due: the latest before the horizon
    "10, 15,   10",
    "10, 45,   40",
    // a younger firing (after the horizon) is due: this one coalesces into it (none here)
    "10, 21,   ",
    "10, 50.5, ",
    "10, 52.5, 50",
  })
  void aLateTimerCoalescesButNeverPastTheHorizon(double firing, double now, String expected) {
    assertThat(RULES.coalesce(EVERY_10S, at(firing), at(now))).isEqualTo(atOrNone(expected));
  }

  @ParameterizedTest(name = "start at {0}, grace {1}s: catch up {2}")
  @CsvSource({
    // the latest firing within the grace and before the horizon
    "25,  60, 20",
    "25,  5,  20",
    "25,  4,  ",
    "25,  2,  ",
    // a firing after the horizon is due: the timer claims it, no catch-up
    "21,  60, ",
    "30,  60, ",
    // the latest firing is beyond the grace
    "39,  5,  ",
  })
  void atStartTheLatestFiringWithinTheGraceIsCaughtUp(double now, long grace, String expected) {
    assertThat(RULES.catchUp(EVERY_10S, Duration.ofSeconds(grace), at(now)))
        .isEqualTo(atOrNone(expected));
  }

  @ParameterizedTest(name = "firing {0}, grace {1}s, retry at {2}: worth it {3}")
  @CsvSource({
    "10, 30, 20,   true",
    "10, 30, 41,   true",
    // past the grace, but the next firing (20) is due by then: the retry claims that one
    "10, 5,  20,   true",
    "10, 5,  16.5, false",
  })
  void aRetryIsWorthItWithinTheGraceOrWhenANewerFiringIsDue(
      double firing, long grace, double retryAt, boolean worth) {
    assertThat(
            FiringRules.worthRetrying(
                EVERY_10S, Duration.ofSeconds(grace), at(firing), at(retryAt)))
        .isEqualTo(worth);
  }

  @ParameterizedTest(name = "attempt {0}: {1} ms")
  @CsvSource({
    "0, 500",
    "1, 500",
    "2, 1000",
    "3, 2000",
    "6, 16000",
    "7, 30000",
    "12, 30000",
    "1000, 30000"
  })
  void backoffDoublesFromHalfASecondUpToThirtySeconds(int attempt, long millis) {
    assertThat(FiringRules.backoff(attempt)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "ttl {0} ms: reports retried after {1} ms")
  @CsvSource({"10, 1000", "1000, 1000", "10000, 10000", "30000, 30000", "600000, 30000"})
  void undecidedReportsWaitAboutOneTtl(long ttl, long pause) {
    assertThat(FiringRules.reportPause(Duration.ofMillis(ttl))).isEqualTo(Duration.ofMillis(pause));
  }

  @ParameterizedTest(name = "sent {0} ms, ttl {1} ms, answered {2} ms: in time {3}")
  @CsvSource({
    // valid until sent + ttl - ttl/10
    "0,    3000,  0,    true",
    "0,    3000,  2699, true",
    "0,    3000,  2700, false",
    "0,    3000,  9000, false",
    "5000, 30000, 31999, true",
    "5000, 30000, 32000, false",
  })
  void anAnswerCountsOnlyBeforeTheLeaseValidityCountedFromTheSend(
      long sent, long ttl, long answered, boolean inTime) {
    long ms = 1_000_000;
    assertThat(LeaseTiming.answeredInTime(sent * ms, Duration.ofMillis(ttl), answered * ms))
        .isEqualTo(inTime);
    assertThat(LeaseTiming.validUntil(sent * ms, Duration.ofMillis(ttl)))
        .isEqualTo((sent + ttl - ttl / 10) * ms);
  }

  @ParameterizedTest(name = "backoff {0}s, max {1}s, after attempt {2}: {3}s")
  @CsvSource({
    "30, 600, 1, 30",
    "30, 600, 2, 60",
    "30, 600, 3, 120",
    "30, 600, 5, 480",
    "30, 600, 6, 600",
    "30, 600, 40, 600",
    "1, 1, 3, 1",
    "5, 8, 2, 8",
  })
  void theRetryBackoffDoublesPerAttemptUpToMaxBackoff(
      long backoff, long max, int attempt, long pause) {
    RetryPolicy retry = new RetryPolicy(99, Duration.ofSeconds(backoff), Duration.ofSeconds(max));
    assertThat(retry.pauseAfter(attempt)).isEqualTo(Duration.ofSeconds(pause));
  }

  @ParameterizedTest(name = "{0} attempt {1} of 3 ended at {2}: retry at {3}")
  @CsvSource({
    // every 10 s, backoff 2 s, max 3 s, skew allowance 2 s; the firing is at 10
    "FAILED,     1, 11,     13",
    "TIMED_OUT,  1, 11.25,  13.25",
    "FAILED,     2, 13.5,   16.5",
    // the last attempt, and outcomes never retried
    "FAILED,     3, 17,     ",
    "LEASE_LOST, 1, 11,     ",
    "MISSED,     1, 10,     ",
    "SKIPPED,    1, 10,     ",
    "PAUSED,     1, 10,     ",
    "SUCCEEDED,  1, 11,     ",
    // due within the skew allowance of the next firing (20): the next firing wins
    "FAILED,     1, 15.999, 17.999",
    "FAILED,     1, 16,     ",
    "FAILED,     2, 19,     ",
  })
  void aFailedOrTimedOutRunIsRetriedAtItsEndPlusTheBackoffUnlessTheNextFiringComesFirst(
      Outcome outcome, int attempt, double end, String retryAt) {
    RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(2), Duration.ofSeconds(3));
    ExecutionRecord row =
        new ExecutionRecord(
            "job",
            at(10),
            "node",
            1,
            TriggerKind.SCHEDULED,
            at(10),
            at(end).plusNanos(400_000),
            outcome,
            null,
            null,
            null,
            attempt);
    FiringRules.AfterRun after = RULES.afterRun(retry, EVERY_10S, row);
    assertThat(Optional.ofNullable(after.retryAt())).isEqualTo(atOrNone(retryAt));
  }

  @ParameterizedTest(name = "{0}: no retry")
  @CsvSource({"MANUAL"})
  void aManualRunIsNeverRetried(TriggerKind trigger) {
    RetryPolicy retry = new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(1));
    ExecutionRecord row =
        new ExecutionRecord(
            "job", at(10), "n", 1, trigger, at(10), at(11), Outcome.FAILED, 1, null, null, 1);
    assertThat(RULES.afterRun(retry, EVERY_10S, row).retrying()).isFalse();
  }
}
