package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker itself, on hand-written ledgers: each rule must catch what it is for. */
class LedgerCheckerTest {
  private static final Instant T = Instant.parse("2026-11-30T06:30:00.000Z");
  private static final Duration SECOND = Duration.ofSeconds(1);

  private static final DateTimeFormatter FIRE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** Like {@code $LEASEHOLD_FIRE_TIME}: ISO-8601 UTC with milliseconds. */
  private static String at(int s) {
    return FIRE_TIME.format(T.plusSeconds(s));
  }

  private static Ledger ledger(String... lines) {
    return Ledger.parse(List.of(lines));
  }

  private static LedgerChecker checker() {
    return LedgerChecker.every(SECOND).window(T, T.plusSeconds(3));
  }

  @Test
  void aCleanLedgerPasses() {
    Ledger clean = ledger(at(0) + " a 1", at(1) + " b 2", at(2) + " a 3", at(3) + " c 5");
    LedgerChecker.Verdict verdict = checker().check(clean);
    assertThat(verdict.problems()).isEmpty();
    verdict.assertClean(clean);
  }

  @Test
  void aFiringThatRanTwiceIsReportedWithBothNodes() {
    Ledger twice =
        ledger(at(0) + " a 1", at(1) + " b 2", at(1) + " c 3", at(2) + " a 4", at(3) + " a 5");
    LedgerChecker.Verdict verdict = checker().check(twice);
    assertThat(verdict.problems())
        .singleElement()
        .asString()
        .contains("DUPLICATE", "firing " + T.plusSeconds(1), "ran 2 times", "b fence 2 (line 2)")
        .contains("c fence 3 (line 3)");
    assertThatThrownBy(() -> verdict.assertClean(twice))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("DUPLICATE");
  }

  @Test
  void aDuplicateIsReportedEvenInsideAFaultWindowAndOutsideTheObservationWindow() {
    Ledger twice = ledger(at(10) + " a 1", at(10) + " b 2");
    LedgerChecker.Verdict verdict =
        checker().fault("kill a", T.plusSeconds(9), T.plusSeconds(15)).check(twice);
    assertThat(verdict.problems()).anyMatch(p -> p.startsWith("DUPLICATE"));
  }

  @Test
  void aFenceThatDoesNotRiseWithTheFiringIsReported() {
    Ledger inverted = ledger(at(0) + " a 1", at(2) + " b 3", at(1) + " c 3", at(3) + " a 4");
    assertThat(checker().check(inverted).problems())
        .singleElement()
        .asString()
        .contains("FENCE", "firing " + T.plusSeconds(2), "b fence 3", "c fence 3");
  }

  @Test
  void aMissingFiringOutsideFaultWindowsIsReported() {
    Ledger gap = ledger(at(0) + " a 1", at(1) + " b 2", at(3) + " a 4");
    assertThat(checker().check(gap).problems())
        .singleElement()
        .asString()
        .contains("MISSING", "firing " + T.plusSeconds(2));
  }

  @Test
  void aMissingFiringInsideAFaultWindowIsExcused() {
    Ledger gap = ledger(at(0) + " a 1", at(3) + " a 4");
    LedgerChecker.Verdict verdict =
        checker().fault("pause b", T.plusMillis(500), T.plusSeconds(2)).check(gap);
    assertThat(verdict.problems()).isEmpty();
    assertThat(verdict.summary()).contains("excused by fault windows: 2");
  }

  @Test
  void aFiringOffTheScheduleAndAGarbledLineAreReported() {
    Ledger odd = ledger(at(0) + " a 1", "2026-11-30T06:30:01.500Z b 2", "half a line");
    assertThat(LedgerChecker.every(SECOND).check(odd).problems())
        .hasSize(2)
        .anyMatch(p -> p.contains("OFF SCHEDULE"))
        .anyMatch(p -> p.contains("malformed ledger line 3"));
  }

  @Test
  void overlappingRunsAreReportedAndAKilledNodeEndsItsRuns() {
    Ledger overlap =
        ledger(
            "start " + at(0) + " a 1",
            "start " + at(10) + " b 2",
            "end " + at(0) + " a 1",
            "end " + at(10) + " b 2");
    assertThat(LedgerChecker.every(SECOND).noOverlap().check(overlap).problems())
        .singleElement()
        .asString()
        .contains("OVERLAP", "firing " + T.plusSeconds(10), "b fence 2", "a fence 1");

    Ledger killed =
        ledger(
            "start " + at(0) + " a 1",
            "killed a",
            "start " + at(10) + " b 2",
            "end " + at(10) + " b 2");
    assertThat(LedgerChecker.every(SECOND).noOverlap().check(killed).problems()).isEmpty();
  }
}
