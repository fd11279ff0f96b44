package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.schedule.WindowedSchedule;
import dev.leasehold.core.scheduler.Overlap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code exclude}, {@code calendars} (with an iCalendar file), {@code start} and {@code end} read
 * from a file: the job's schedule skips exactly the windows written, in the job's zone.
 */
class ExclusionConfigTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  @TempDir Path dir;

  private DaemonConfig load(String yaml) throws Exception {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(file, yaml);
    return new ConfigLoader(Map.of(), "host-1").load(file);
  }

  private static Instant berlin(String local) {
    return LocalDateTime.parse(local).atZone(BERLIN).toInstant();
  }

  private static final String ICS =
      String.join(
          "\r\n",
          "BEGIN:VCALENDAR",
          "VERSION:2.0",
          "PRODID:-//test//holidays//EN",
          "BEGIN:VEVENT",
          "UID:1",
          "SUMMARY:Christmas",
          "DTSTART;VALUE=DATE:20261225",
          "DTEND;VALUE=DATE:20261227",
          "END:VEVENT",
          "BEGIN:VEVENT",
          "UID:2",
          "SUMMARY:New year",
          "DTSTART;VALUE=DATE:20260101",
          "RRULE:FREQ=YEARLY",
          "END:VEVENT",
          "BEGIN:VEVENT",
          "UID:3",
          "SUMMARY:Maintenance, written over",
          " two lines",
          "DTSTART;TZID=Europe/Berlin:20261202T073000",
          "DTEND;TZID=Europe/Berlin:20261202T083000",
          "END:VEVENT",
          "BEGIN:VEVENT",
          "UID:4",
          "STATUS:CANCELLED",
          "DTSTART;VALUE=DATE:20261203",
          "END:VEVENT",
          "END:VCALENDAR",
          "");

  @Test
  void aCalendarFromAnIcsFileAndTheJobsOwnWindowsAreSkipped() throws Exception {
    Path ics = dir.resolve("holidays.ics");
    Files.writeString(ics, ICS);
    DaemonConfig c =
        load(
            "calendars:\n  holidays:\n    - {ics: "
                + ics
                + "}\n    - {dates: [\"*-12-24\"]}\n"
                + "jobs:\n  - name: reminder\n    cron: \"0 8 * * *\"\n    zone: Europe/Berlin\n"
                + "    start: \"2026-12-01T00:00:00\"\n    end: \"2027-01-05T08:00:00\"\n"
                + "    exclude:\n      - holidays\n"
                + "      - {cron: \"0 7 * * SUN\", for: 2h}\n"
                + "      - {from: \"2026-12-10T00:00:00Z\", to: \"2026-12-12T07:00:00Z\"}\n"
                + "    command: [\"true\"]\n");
    Schedule s = c.job("reminder").orElseThrow().schedule();
    assertThat(s).isInstanceOf(WindowedSchedule.class);

    assertThat(s.nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
        .as("start")
        .contains(berlin("2026-12-01T08:00"));
    assertThat(s.nextAfter(berlin("2026-12-01T08:00")))
        .as("the timed event (07:30-08:30 Berlin) holds the 2nd's 08:00")
        .contains(berlin("2026-12-03T08:00"))
        .as("a cancelled event excludes nothing");
    assertThat(s.nextAfter(berlin("2026-12-05T08:00")))
        .as("Sunday the 6th: the recurring window 07:00-09:00")
        .contains(berlin("2026-12-07T08:00"));
    assertThat(s.nextAfter(berlin("2026-12-09T08:00")))
        .as("[from, to): the 10th and 11th; the 12th at 08:00 Berlin is 07:00Z, not in it")
        .contains(berlin("2026-12-12T08:00"));
    assertThat(s.nextAfter(berlin("2026-12-23T08:00")))
        .as("the 24th (every year), the 25th and 26th (all-day event of two days)")
        .contains(berlin("2026-12-28T08:00"));
    assertThat(s.nextAfter(berlin("2026-12-31T08:00")))
        .as("the 1st, a yearly event of the file")
        .contains(berlin("2027-01-02T08:00"));
    assertThat(s.nextAfter(berlin("2027-01-04T08:00")))
        .as("end, inclusive")
        .contains(berlin("2027-01-05T08:00"));
    assertThat(s.nextAfter(berlin("2027-01-05T08:00"))).isEmpty();
  }

  @Test
  void aJobWithoutWindowsKeepsItsPlainScheduleAndSkipsOverlaps() throws Exception {
    DaemonConfig c = load("jobs:\n  - name: a\n    every: 1m\n    command: [\"true\"]\n");
    assertThat(c.job("a").orElseThrow().schedule()).isNotInstanceOf(WindowedSchedule.class);
    assertThat(c.job("a").orElseThrow().overlap()).isEqualTo(Overlap.SKIP);
  }

  @Test
  void bufferOneIsReadInAnyCase() throws Exception {
    DaemonConfig c =
        load(
            "jobs:\n  - name: a\n    every: 1m\n    overlap: Buffer-One\n    command: [\"true\"]\n");
    assertThat(c.job("a").orElseThrow().overlap()).isEqualTo(Overlap.BUFFER_ONE);
  }

  @Test
  void replaceAndAllowAreRead() throws Exception {
    DaemonConfig c =
        load(
            "jobs:\n  - name: a\n    every: 1m\n    overlap: REPLACE\n    command: [\"true\"]\n"
                + "  - name: b\n    every: 1m\n    overlap: allow\n    command: [\"true\"]\n");
    assertThat(c.job("a").orElseThrow().overlap()).isEqualTo(Overlap.REPLACE);
    assertThat(c.job("b").orElseThrow().overlap()).isEqualTo(Overlap.ALLOW);
  }

  @Test
  void anRruleTheReaderCannotFollowIsRefusedWithItsLine() throws Exception {
    Path ics = dir.resolve("weekly.ics");
    Files.writeString(
        ics,
        "BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART;VALUE=DATE:20261207\nRRULE:FREQ=WEEKLY;BYDAY=MO\n"
            + "END:VEVENT\nEND:VCALENDAR\n");
    assertThatThrownBy(
            () ->
                load(
                    "calendars:\n  weekly: [{ics: "
                        + ics
                        + "}]\njobs:\n  - name: a\n    every: 1m\n    command: [\"true\"]\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "calendars.weekly[0].ics: " + ics + " line 4: only RRULE:FREQ=YEARLY");
  }
}
