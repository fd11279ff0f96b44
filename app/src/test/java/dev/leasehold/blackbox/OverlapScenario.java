package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.blackbox.GroupJitterScenario.Span;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code overlap: replace} and {@code overlap: allow} on daemons another scenario runs (on MariaDB,
 * those of {@link HistoryScenarios}): the jobs write a start line and an end line per run into a
 * ledger of their own, and a TERM trap writes the end line of a run that is stopped, marked {@code
 * gtrap}. Judged from the ledgers and the history, never from durations alone.
 */
final class OverlapScenario {
  private OverlapScenario() {}

  private static String line(String job) {
    return job + " $LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE $$ $(date +%s%N)";
  }

  /** A run's script: start line, {@code seconds} of work, end line; TERM writes the trap's line. */
  private static String script(String job, Path ledger, int seconds) {
    String to = " >> \"" + ledger + "\"";
    return "trap 'echo \"gtrap "
        + line(job)
        + "\""
        + to
        + "; exit 143' TERM; echo \"gstart "
        + line(job)
        + "\""
        + to
        + "; sleep "
        + seconds
        + " & wait $!; echo \"gend "
        + line(job)
        + "\""
        + to;
  }

  /**
   * Every 5 s, each run would take 12 s: every run is replaced by the next firing (SIGTERM to its
   * group, the trap writes its end line, SIGKILL after a kill-grace of 2 s).
   */
  static String replaceJob(Path ledger) {
    return "name: replaced\nevery: 5s\noverlap: replace\nkill-grace: 2s\nmisfire-grace: 20s\n"
        + Configs.shell(script("replaced", ledger, 12));
  }

  /** Every 2 s, each run takes 5 s: runs of consecutive firings overlap by design. */
  static String allowJob(Path ledger) {
    return "name: allowed\nevery: 2s\noverlap: allow\n"
        + Configs.shell(script("allowed", ledger, 5));
  }

  /**
   * The replaced job: each firing ran once; each run started after the run before it ended; the
   * runs that ended before the daemons were asked to stop ended by the TERM trap, and the history
   * records each of them {@code replaced}; the firing after each of them ran.
   */
  static void judgeReplaced(Path ledger, Instant stopping, Map<String, String> history) {
    List<Span> byStart =
        GroupJitterScenario.spans(ledger, stopping.minusSeconds(15)).stream()
            .sorted(Comparator.comparingLong(Span::start))
            .toList();
    Set<String> trapped = trapped(ledger);
    long stoppingNanos = stopping.getEpochSecond() * 1_000_000_000L + stopping.getNano();
    Set<String> firings = new HashSet<>();
    int replaced = 0;
    for (int i = 0; i < byStart.size(); i++) {
      Span span = byStart.get(i);
      assertThat(firings.add(span.fire())).as("%s ran once", span).isTrue();
      if (i > 0) {
        Span before = byStart.get(i - 1);
        assertThat(span.start())
            .as("%s starts after %s ended", span, before)
            .isGreaterThanOrEqualTo(before.end());
      }
      if (span.end() < stoppingNanos - 1_000_000_000L && i + 1 < byStart.size()) {
        replaced++;
        assertThat(trapped).as("the TERM trap of %s ran", span).contains(key(span));
        assertThat(history.get(Instant.parse(span.fire()).toString()))
            .as("the history row of %s", span)
            .isEqualTo("replaced");
        assertThat(Instant.parse(byStart.get(i + 1).fire()))
            .as("the firing after %s ran next", span)
            .isEqualTo(Instant.parse(span.fire()).plusSeconds(5));
      }
    }
    assertThat(replaced).as("runs replaced by the next firing: %s", byStart).isGreaterThan(5);
  }

  /**
   * The allowed job: each firing ran once, every firing of the window ran, and most runs overlap
   * the run of the firing after them.
   */
  static void judgeAllowed(Path ledger, Instant from, Instant to, Instant stopping) {
    List<Span> spans = GroupJitterScenario.spans(ledger, stopping.minusSeconds(10));
    Set<String> firings = new HashSet<>();
    for (Span s : spans) {
      assertThat(firings.add(s.fire())).as("%s ran once", s).isTrue();
    }
    Map<Instant, Span> byFiring =
        spans.stream()
            .collect(java.util.stream.Collectors.toMap(s -> Instant.parse(s.fire()), s -> s));
    int overlapping = 0;
    Instant first = Instant.ofEpochSecond((from.getEpochSecond() / 2 + 1) * 2);
    for (Instant f = first; f.isBefore(to); f = f.plusSeconds(2)) {
      assertThat(byFiring).as("firing %s ran", f).containsKey(f);
      Span next = byFiring.get(f.plusSeconds(2));
      if (next != null && next.start() < byFiring.get(f).end()) {
        overlapping++;
      }
    }
    assertThat(overlapping)
        .as("runs that overlap the next firing's run: %s", spans)
        .isGreaterThan(5);
  }

  /** The runs whose end line the TERM trap wrote. */
  private static Set<String> trapped(Path ledger) {
    Set<String> out = new HashSet<>();
    try {
      for (String text : Files.readAllLines(ledger)) {
        String[] t = text.strip().split("\\s+");
        if (t[0].equals("gtrap")) {
          out.add(t[1] + " " + t[2] + " " + t[3] + " " + t[4]);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static String key(Span s) {
    return s.job() + " " + s.fire() + " " + s.node() + " " + s.pid();
  }
}
