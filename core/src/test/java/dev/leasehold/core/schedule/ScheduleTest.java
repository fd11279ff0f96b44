package dev.leasehold.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

  private static Instant at(String iso) {
    return Instant.parse(iso);
  }

  private static List<Instant> firings(Schedule s, Instant after, int n) {
    List<Instant> out = new ArrayList<>();
    Instant t = after;
    for (int i = 0; i < n; i++) {
      t = s.nextAfter(t).orElseThrow();
      out.add(t);
    }
    return out;
  }

  @Test
  void fiveFieldCronFiresInItsZone() {
    Schedule digest = Schedule.cron("30 6 * * *", SHANGHAI);
    assertThat(digest.nextAfter(at("2026-11-30T00:00:00Z"))).contains(at("2026-11-30T22:30:00Z"));
    assertThat(digest.nextAfter(at("2026-11-29T22:30:00Z"))).contains(at("2026-11-30T22:30:00Z"));
  }

  @Test
  void sixFieldCronHasSecondsFirst() {
    Schedule s = Schedule.cron("*/15 * * * * *", ZoneOffset.UTC);
    assertThat(firings(s, at("2026-11-30T06:00:07Z"), 3))
        .containsExactly(
            at("2026-11-30T06:00:15Z"), at("2026-11-30T06:00:30Z"), at("2026-11-30T06:00:45Z"));
  }

  @Test
  void dayOfWeekNamesWork() {
    Schedule weekly = Schedule.cron("0 18 * * SUN", SHANGHAI);
    // 2026-12-06 is a Sunday
    assertThat(weekly.nextAfter(at("2026-11-30T00:00:00Z"))).contains(at("2026-12-06T10:00:00Z"));
  }

  @Test
  void aLocalTimeInsideTheSpringForwardGapFiresAsFarPastTheGap() {
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 does not exist that day
    Schedule daily = Schedule.cron("30 2 * * *", BERLIN);
    assertThat(firings(daily, at("2026-03-28T12:00:00Z"), 2))
        .containsExactly(
            at("2026-03-29T01:30:00Z"), at("2026-03-30T00:30:00Z")); // 03:30 CEST, then 02:30 CEST
  }

  @Test
  void halfHourlyFiringsAcrossTheGapCollapseOntoOneInstantEach() {
    Schedule s = Schedule.cron("*/30 * * * *", BERLIN);
    assertThat(firings(s, at("2026-03-29T00:15:00Z"), 4))
        .containsExactly(
            at("2026-03-29T00:30:00Z"), // 01:30 CET
            at("2026-03-29T01:00:00Z"), // 02:00 (gap) = 03:00 CEST
            at("2026-03-29T01:30:00Z"), // 02:30 (gap) = 03:30 CEST
            at("2026-03-29T02:00:00Z")); // 04:00 CEST
  }

  @Test
  void aLocalTimeThatExistsTwiceOnFallBackFiresOnceAtTheFirstOccurrence() {
    // Berlin, 2026-10-25: 03:00 CEST falls back to 02:00 CET; 02:30 happens twice
    Schedule daily = Schedule.cron("30 2 * * *", BERLIN);
    assertThat(firings(daily, at("2026-10-24T12:00:00Z"), 2))
        .containsExactly(at("2026-10-25T00:30:00Z"), at("2026-10-26T01:30:00Z"));
    // from inside the repeated hour, the second 02:30 is not a firing
    assertThat(daily.nextAfter(at("2026-10-25T01:10:00Z"))).contains(at("2026-10-26T01:30:00Z"));
  }

  @Test
  void anHourlyJobDoesNotRepeatTheFallBackHour() {
    Schedule hourly = Schedule.cron("0 * * * *", BERLIN);
    assertThat(firings(hourly, at("2026-10-24T23:30:00Z"), 3))
        .containsExactly(
            at("2026-10-25T00:00:00Z"), // 02:00 CEST
            at("2026-10-25T02:00:00Z"), // 03:00 CET (02:00 CET, the repeat, does not fire)
            at("2026-10-25T03:00:00Z"));
  }

  @Test
  void theJvmDefaultZoneChangesNothing() {
    TimeZone saved = TimeZone.getDefault();
    try {
      List<Instant> expected =
          firings(Schedule.cron("30 2 * * *", BERLIN), at("2026-03-27T00:00:00Z"), 5);
      for (String tz :
          new String[] {"America/New_York", "Asia/Kolkata", "Pacific/Chatham", "UTC"}) {
        TimeZone.setDefault(TimeZone.getTimeZone(tz));
        assertThat(firings(Schedule.cron("30 2 * * *", BERLIN), at("2026-03-27T00:00:00Z"), 5))
            .as(tz)
            .isEqualTo(expected);
      }
    } finally {
      TimeZone.setDefault(saved);
    }
  }

  @Test
  void intervalsAreAlignedToTheEpochNotToProcessStart() {
    Schedule s = Schedule.every(Duration.ofMinutes(5), Duration.ofSeconds(30));
    assertThat(s.nextAfter(at("2026-11-30T06:02:11.123Z"))).contains(at("2026-11-30T06:05:30Z"));
    assertThat(s.nextAfter(at("2026-11-30T06:05:30Z"))).contains(at("2026-11-30T06:10:30Z"));
    assertThat(s.nextAfter(at("1969-12-31T23:59:59Z"))).contains(at("1970-01-01T00:00:30Z"));
  }

  @Test
  void latestInCoalescesMissedFirings() {
    Schedule s = Schedule.every(Duration.ofMinutes(1), Duration.ZERO);
    assertThat(s.latestIn(at("2026-11-30T06:00:00Z"), at("2026-11-30T06:04:30Z")))
        .contains(at("2026-11-30T06:04:00Z"));
    assertThat(s.latestIn(at("2026-11-30T06:04:00Z"), at("2026-11-30T06:04:30Z"))).isEmpty();
    Schedule cron = Schedule.cron("*/10 * * * *", ZoneOffset.UTC);
    assertThat(cron.latestIn(at("2026-11-30T06:00:00Z"), at("2026-11-30T06:35:00Z")))
        .contains(at("2026-11-30T06:30:00Z"));
  }

  @Test
  void aOneShotScheduleFiresOnce() {
    Schedule once = Schedule.at(at("2026-12-24T18:00:00Z"));
    assertThat(once.nextAfter(at("2026-11-30T00:00:00Z"))).contains(at("2026-12-24T18:00:00Z"));
    assertThat(once.nextAfter(at("2026-12-24T18:00:00Z"))).isEmpty();
  }

  @Test
  void badSchedulesAreRejectedWithAReason() {
    assertThatThrownBy(() -> Schedule.cron("61 * * * *", ZoneOffset.UTC))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("61 * * * *");
    assertThatThrownBy(() -> Schedule.cron("* * *", ZoneOffset.UTC))
        .hasMessageContaining("3 fields");
    assertThatThrownBy(() -> Schedule.cron("", ZoneOffset.UTC)).hasMessageContaining("empty");
    assertThatThrownBy(() -> Schedule.cron("0 0 30 2 *", ZoneOffset.UTC))
        .hasMessageContaining("never fires");
    assertThatThrownBy(() -> Schedule.every(Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> Schedule.every(Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .hasMessageContaining("offset");
  }

  @Test
  void durationsParseAndFormat() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Durations.format(Duration.ofMinutes(120))).isEqualTo("2h");
    for (String bad : new String[] {"", "5", "5x", "-1s", "1.5s", "s"}) {
      assertThatThrownBy(() -> Durations.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
