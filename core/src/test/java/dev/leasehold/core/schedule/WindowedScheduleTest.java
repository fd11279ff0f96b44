package dev.leasehold.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Exclusion windows and start/end bounds: firings inside a window do not exist for the schedule, so
 * the next firing is the first one after it; checked on DST days and across midnight.
 */
class WindowedScheduleTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static List<Instant> firings(Schedule s, Instant from, Instant to) {
    List<Instant> out = new ArrayList<>();
    Optional<Instant> next = s.nextAfter(from);
    while (next.isPresent() && next.get().isBefore(to)) {
      out.add(next.get());
      next = s.nextAfter(next.get());
    }
    return out;
  }

  private static Instant berlin(String local) {
    return LocalDateTime.parse(local).atZone(BERLIN).toInstant();
  }

  @Test
  void aWindowIsHalfOpenAndTheNextFiringIsTheFirstAfterIt() {
    Schedule hourly = Schedule.every(Duration.ofHours(1), Duration.ZERO);
    Instant from = Instant.parse("2026-12-01T10:00:00Z");
    Instant to = Instant.parse("2026-12-01T13:00:00Z");
    Schedule s = Schedule.windowed(hourly, null, null, List.of(new Exclusion.Between(from, to)));

    assertThat(s.nextAfter(Instant.parse("2026-12-01T09:30:00Z")))
        .contains(Instant.parse("2026-12-01T10:00:00Z").plus(Duration.ofHours(3)))
        .as("10:00, 11:00, 12:00 are in [from, to); 13:00 is not");
    assertThat(s.nextAfter(Instant.parse("2026-12-01T08:30:00Z")))
        .contains(Instant.parse("2026-12-01T09:00:00Z"));
    assertThat(
            s.latestIn(
                Instant.parse("2026-12-01T09:30:00Z"), Instant.parse("2026-12-01T12:59:00Z")))
        .as("nothing to catch up inside the window")
        .isEmpty();
  }

  @Test
  void aCronWindowCrossingMidnightExcludesBothSides() {
    // every 30 minutes; no runs from 23:00 for 2h (until 01:00) every night, in Berlin
    Schedule s =
        Schedule.windowed(
            Schedule.cron("*/30 * * * *", BERLIN),
            null,
            null,
            List.of(
                new Exclusion.Recurring(Schedule.cron("0 23 * * *", BERLIN), Duration.ofHours(2))));
    List<Instant> night = firings(s, berlin("2026-12-01T22:00"), berlin("2026-12-02T02:00"));
    assertThat(night)
        .containsExactly(
            berlin("2026-12-01T22:30"), berlin("2026-12-02T01:00"), berlin("2026-12-02T01:30"));
  }

  @Test
  void datesAreWholeDaysInTheZoneOnDstDaysToo() {
    // spring forward 2026-03-29 (23 hours), fall back 2026-10-25 (25 hours) in Berlin
    Schedule hourly = Schedule.cron("0 * * * *", BERLIN);
    Schedule s =
        Schedule.windowed(
            hourly,
            null,
            null,
            List.of(new Exclusion.Dates(List.of("2026-03-29", "2026-10-25"), BERLIN)));

    assertThat(s.nextAfter(berlin("2026-03-28T23:30")))
        .as("the 23-hour day is excluded whole")
        .contains(berlin("2026-03-30T00:00"));
    assertThat(s.nextAfter(berlin("2026-10-24T23:30")))
        .as("the 25-hour day is excluded whole, its repeated hour too")
        .contains(berlin("2026-10-26T00:00"));
    assertThat(firings(s, berlin("2026-03-28T22:30"), berlin("2026-03-30T01:30")))
        .containsExactly(
            berlin("2026-03-28T23:00"), berlin("2026-03-30T00:00"), berlin("2026-03-30T01:00"));
    // the 25-hour day in UTC: 2026-10-24T22:00Z to 2026-10-25T23:00Z
    assertThat(berlin("2026-10-26T00:00")).isEqualTo(Instant.parse("2026-10-25T23:00:00Z"));
  }

  @Test
  void aYearlyDateAndConsecutiveDaysAreOneJump() {
    Schedule everySecond = Schedule.every(Duration.ofSeconds(1), Duration.ZERO);
    Schedule s =
        Schedule.windowed(
            everySecond,
            null,
            null,
            List.of(new Exclusion.Dates(List.of("*-12-31", "*-01-01"), ZoneOffset.UTC)));
    assertThat(s.nextAfter(Instant.parse("2027-12-30T23:59:59Z")))
        .as("two whole days of an every-second job skipped in one step")
        .contains(Instant.parse("2028-01-02T00:00:00Z"));
  }

  @Test
  void startAndEndAreInclusive() {
    Schedule hourly = Schedule.every(Duration.ofHours(1), Duration.ZERO);
    Instant start = Instant.parse("2026-12-01T10:00:00Z");
    Instant end = Instant.parse("2026-12-01T12:00:00Z");
    Schedule s = Schedule.windowed(hourly, start, end, List.of());
    assertThat(
            firings(
                s, Instant.parse("2026-11-30T00:00:00Z"), Instant.parse("2026-12-02T00:00:00Z")))
        .containsExactly(start, start.plus(Duration.ofHours(1)), end);
    assertThat(s.nextAfter(end)).isEmpty();
  }

  @Test
  void aJitteredScheduleIsExcludedByItsJitteredInstants() {
    Schedule jittered =
        Schedule.jittered(
            Schedule.every(Duration.ofMinutes(1), Duration.ZERO), "j", Duration.ofSeconds(20));
    Instant from = Instant.parse("2026-12-01T10:00:00Z");
    Instant to = from.plus(Duration.ofMinutes(10));
    Schedule s = Schedule.windowed(jittered, null, null, List.of(new Exclusion.Between(from, to)));
    for (Instant f :
        firings(s, from.minus(Duration.ofMinutes(5)), to.plus(Duration.ofMinutes(5)))) {
      assertThat(!f.isBefore(from) && f.isBefore(to)).as(f + " inside the window").isFalse();
      assertThat(jittered.nextAfter(f.minusMillis(1))).contains(f);
    }
  }

  @Test
  void aScheduleWhollyExcludedHasNoNextFiring() {
    Schedule s =
        Schedule.windowed(
            Schedule.every(Duration.ofHours(1), Duration.ZERO),
            null,
            Instant.parse("2027-01-01T00:00:00Z"),
            List.of(
                new Exclusion.Between(
                    Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2028-01-01T00:00:00Z"))));
    assertThat(s.nextAfter(Instant.parse("2026-06-01T00:00:00Z"))).isEmpty();
  }

  @Test
  void badWindowsAreRefused() {
    Instant t = Instant.parse("2026-12-01T10:00:00Z");
    assertThatThrownBy(() -> new Exclusion.Between(t, t)).hasMessageContaining("must be after");
    assertThatThrownBy(() -> Exclusion.Dates.parse("2026-13-01"))
        .hasMessageContaining("not a date");
    assertThatThrownBy(() -> Exclusion.Dates.parse("*-02-30")).hasMessageContaining("not a date");
    assertThatThrownBy(
            () ->
                Schedule.windowed(
                    Schedule.every(Duration.ofHours(1), Duration.ZERO),
                    t,
                    t.minusSeconds(1),
                    List.of()))
        .hasMessageContaining("before start");
  }

  @Test
  void equalWindowsMakeEqualSchedulesSoAReloadSeesNoChange() {
    Schedule a =
        Schedule.windowed(
            Schedule.cron("0 3 * * *", BERLIN),
            null,
            null,
            List.of(
                new Exclusion.Recurring(
                    Schedule.cron("0 2 * * SUN", BERLIN), Duration.ofHours(2))));
    Schedule b =
        Schedule.windowed(
            Schedule.cron("0 3 * * *", BERLIN),
            null,
            null,
            List.of(
                new Exclusion.Recurring(
                    Schedule.cron("0 2 * * SUN", BERLIN), Duration.ofHours(2))));
    assertThat(a).isEqualTo(b);
  }
}
