package dev.leasehold.core.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table of {@link CheckRules}: a check of every 60 s with a grace of 10 s, so a ping at {@code
 * t} is overdue after {@code t + 70}. Pings are written as their second ({@code f} for a fail
 * ping), events as {@code kind@second:ping}, the ping the event is about.
 */
class CheckRulesTest {
  private static final Instant T0 = Instant.parse("2026-12-01T03:00:00Z");
  private static final CheckDefinition CHECK =
      CheckDefinition.every("nas-scrub", Duration.ofSeconds(60), Duration.ofSeconds(10));

  static Stream<Arguments> table() {
    return Stream.of(
        row("never pinged: new, nothing overdue", "", 10_000, ""),
        row("pinged in time, deadline not reached", "0 60 120", 150, ""),
        row("deadline passed, not yet settled (the skew allowance)", "0", 71, ""),
        row("deadline passed and settled: missed about the last ping", "0", 72, "missed@70:0"),
        row("a ping exactly at the deadline is in time", "0 70", 100, ""),
        row("missed once however long the check stays down", "0 60", 100_000, "missed@130:60"),
        row("the next ping recovers, once", "0 60 500 560", 600, "missed@130:60 recovered@500:500"),
        row(
            "a second gap is a second missed",
            "0 500 1000",
            1060,
            "missed@70:0 recovered@500:500 missed@570:500 recovered@1000:1000"),
        row("a fail ping fails at once", "0 30f", 40, "failed@30:30"),
        row("a fail ping moves the deadline", "0 60f", 110, "failed@60:60"),
        row(
            "a good ping after a fail ping recovers",
            "0 30f 90",
            100,
            "failed@30:30 recovered@90:90"),
        row(
            "a fail ping after a gap: missed and failed, no recovery",
            "0 500f",
            510,
            "missed@70:0 failed@500:500"),
        row(
            "two fail pings are two failures, one recovery",
            "0 10f 20f 30",
            40,
            "failed@10:10 failed@20:20 recovered@30:30"),
        row(
            "missed after a fail ping when nothing follows",
            "0 10f",
            200,
            "failed@10:10 missed@80:10"));
  }

  private static Arguments row(String name, String pings, long now, String events) {
    return Arguments.of(name, pings, now, events);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void theEventsOfThePings(String name, String pings, long now, String expected) {
    List<CheckEvent> events = CheckRules.events(CHECK, pings(pings), T0.plusSeconds(now));
    assertThat(events.stream().map(CheckRulesTest::show).toList())
        .as(name)
        .containsExactlyElementsOf(expected.isEmpty() ? List.of() : List.of(expected.split(" ")));
  }

  @Test
  void anEventsIdentityIsItsKindAndThePingItIsAboutOnEveryReplica() {
    List<CheckEvent> events = CheckRules.events(CHECK, pings("0 60 500"), T0.plusSeconds(560));
    assertThat(events)
        .extracting(CheckEvent::id)
        .containsExactly("nas-scrub:missed:p60", "nas-scrub:recovered:p500");
    assertThat(CheckRules.events(CHECK, pings("0 60 500"), T0.plusSeconds(569)))
        .as("read again later: the same events")
        .isEqualTo(events);
  }

  @Test
  void aCronChecksDeadlineIsTheNextCronTimeAfterThePingPlusTheGrace() {
    CheckDefinition nightly =
        CheckDefinition.cron(
            "scrub", Schedule.cron("0 3 * * *", ZoneOffset.UTC), Duration.ofHours(2));
    Instant ping = Instant.parse("2026-12-01T03:40:00Z");
    assertThat(nightly.deadlineAfter(ping)).contains(Instant.parse("2026-12-02T05:00:00Z"));
    assertThat(nightly.deadlineAfter(Instant.parse("2026-12-01T02:59:00Z")))
        .as("an early ping: due again at today's run")
        .contains(Instant.parse("2026-12-01T05:00:00Z"));
    List<Ping> pings = List.of(new Ping("a", ping, false));
    assertThat(CheckRules.events(nightly, pings, Instant.parse("2026-12-02T05:00:01Z"))).isEmpty();
    assertThat(CheckRules.events(nightly, pings, Instant.parse("2026-12-02T05:00:02Z")))
        .extracting(CheckEvent::kind, CheckEvent::at)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                CheckEvent.MISSED, Instant.parse("2026-12-02T05:00:00Z")));
  }

  @Test
  void theStateLastPingAndNextDeadline() {
    assertThat(CheckRules.status(CHECK, List.of(), T0).state()).isEqualTo(CheckStatus.NEW);
    CheckStatus up = CheckRules.status(CHECK, pings("0 60"), T0.plusSeconds(100));
    assertThat(up.state()).isEqualTo(CheckStatus.UP);
    assertThat(up.lastPing()).isEqualTo(T0.plusSeconds(60));
    assertThat(up.nextDeadline()).isEqualTo(T0.plusSeconds(130));
    assertThat(CheckRules.status(CHECK, pings("0 60"), T0.plusSeconds(131)).state())
        .isEqualTo(CheckStatus.MISSED);
    assertThat(CheckRules.status(CHECK, pings("0 60f"), T0.plusSeconds(100)).state())
        .isEqualTo(CheckStatus.FAILED);
  }

  @Test
  void aReplicaLooksAtTheSettledDeadlineWhileUpAndOftenWhileDown() {
    Duration idle = Duration.ofSeconds(600);
    Duration down = Duration.ofSeconds(5);
    assertThat(CheckRules.nextLook(CHECK, pings("0"), T0.plusSeconds(1), idle, down))
        .as("up: the deadline plus the settle time")
        .isEqualTo(T0.plusSeconds(72));
    assertThat(CheckRules.nextLook(CHECK, pings(""), T0, idle, down))
        .as("new: the idle look")
        .isEqualTo(T0.plusSeconds(600));
    assertThat(CheckRules.nextLook(CHECK, pings("0"), T0.plusSeconds(100), idle, down))
        .as("down: soon, for the recovery")
        .isEqualTo(T0.plusSeconds(105));
    assertThat(CheckRules.nextLook(CHECK, pings("0"), T0.plusSeconds(71), idle, down))
        .as("overdue but not settled: at the settled deadline")
        .isEqualTo(T0.plusSeconds(72));
    assertThat(
            CheckRules.nextLook(CHECK, pings("0"), T0.plusSeconds(1), Duration.ofSeconds(30), down))
        .as("never later than the idle look")
        .isEqualTo(T0.plusSeconds(31));
  }

  static List<Ping> pings(String spec) {
    List<Ping> pings = new ArrayList<>();
    for (String p : spec.split(" ")) {
      if (p.isEmpty()) {
        continue;
      }
      boolean failed = p.endsWith("f");
      String second = failed ? p.substring(0, p.length() - 1) : p;
      pings.add(new Ping("p" + second, T0.plusSeconds(Long.parseLong(second)), failed));
    }
    return pings;
  }

  private static String show(CheckEvent e) {
    return e.kind()
        + "@"
        + Duration.between(T0, e.at()).toSeconds()
        + ":"
        + Duration.between(T0, e.lastPing()).toSeconds();
  }
}
