package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Concurrency groups and jitter, black-box: three daemons share a config with {@code groups:
 * {backups: {max-concurrent: 1}}}. Two jobs of that group, each every 5 s and 1.5 s long, append
 * {@code start}/{@code end} lines with their pid and a nanosecond timestamp to one shared file: no
 * two runs overlap, across all replicas. A third job, every 5 s with {@code jitter: 3s}, appends
 * its firing: each firing runs once, sits within [0, 3 s) of a nominal 5 s firing, one per period,
 * and the offsets differ. Real time; the ledgers are judged, never a duration.
 */
final class GroupJitterScenario {
  private static final Duration PERIOD = Duration.ofSeconds(5);
  private static final Duration JITTER = Duration.ofSeconds(3);

  private GroupJitterScenario() {}

  /** One run of a grouped job, from its start and end lines. */
  record Span(String job, String fire, String node, long pid, long start, long end) {}

  /**
   * The two grouped jobs and the jittered one, with their ledgers, for the daemons of another
   * scenario that shares them ({@link #withGroups} on each daemon's file): on MariaDB those of
   * {@link HistoryScenarios}, on Redis those of {@link
   * Scenarios#aDeletedLeaseRecordDoesNotWedgeTheJob(BlackBox, BlackBoxStore, boolean)}.
   */
  record Jobs(Path shared, Path jittered, List<String> yaml) {}

  static Jobs jobs(Path dir) {
    Path shared = dir.resolve("group-ledger");
    Path jittered = dir.resolve("jitter-ledger");
    String spread =
        Configs.ledgerJob("spread", "every: 5s\njitter: 3s\nmisfire-grace: 10s", jittered);
    return new Jobs(
        shared, jittered, List.of(groupJob("dump-a", shared), groupJob("dump-b", shared), spread));
  }

  /**
   * No two runs of the group overlap, each grouped firing ran once, and the jittered firings ran
   * once each, within their bound, one per period, with differing offsets. The daemons were asked
   * to stop at {@code stopping} and have stopped.
   */
  static void judge(Jobs jobs, Instant stopping) {
    List<Span> spans = spans(jobs.shared(), stopping);
    assertThat(spans).as("runs of the grouped jobs").hasSizeGreaterThanOrEqualTo(6);
    assertThat(spans).extracting(Span::job).contains("dump-a", "dump-b");
    List<Span> byStart = spans.stream().sorted(Comparator.comparingLong(Span::start)).toList();
    for (int i = 1; i < byStart.size(); i++) {
      Span before = byStart.get(i - 1);
      Span after = byStart.get(i);
      assertThat(after.start())
          .as("%s starts after %s ended (max-concurrent 1, across replicas)", after, before)
          .isGreaterThanOrEqualTo(before.end());
    }
    Set<String> firings = new HashSet<>();
    for (Span s : spans) {
      assertThat(firings.add(s.job() + "@" + s.fire())).as("%s ran once", s).isTrue();
    }

    List<Instant> fires =
        Ledger.read(jobs.jittered()).runs().stream().map(Ledger.Entry::fire).sorted().toList();
    assertThat(fires).as("each jittered firing ran once").doesNotHaveDuplicates();
    Set<Long> periods = new HashSet<>();
    Set<Long> offsets = new HashSet<>();
    for (Instant f : fires) {
      long period = Math.floorDiv(f.toEpochMilli(), PERIOD.toMillis());
      long offset = f.toEpochMilli() - period * PERIOD.toMillis();
      assertThat(offset).as("offset of %s", f).isLessThan(JITTER.toMillis());
      assertThat(periods.add(period)).as("one firing per period: %s", f).isTrue();
      offsets.add(offset);
    }
    assertThat(offsets).as("offsets of %s spread within the bound", fires).hasSizeGreaterThan(1);
    List<Long> sorted = periods.stream().sorted().toList();
    List<Long> judged = sorted.subList(1, sorted.size() - 1); // edges may be cut by start and stop
    for (long p = judged.get(0); p <= judged.get(judged.size() - 1); p++) {
      assertThat(periods).as("the firing of period %d ran", p).contains(p);
    }
  }

  /**
   * A job every 1 s bounded by {@code start} and {@code end} with one {@code exclude} window {@code
   * [from, to)} inside, all absolute instants written into the file: the daemons must have started
   * before {@code start}.
   */
  record Windowed(Path ledger, Instant start, Instant from, Instant to, Instant end, String yaml) {}

  /** The windowed job, its bounds {@code lead} and more after now (whole seconds). */
  static Windowed windowed(Path dir, Duration lead) {
    Path ledger = dir.resolve("windowed-ledger");
    Instant start = Instant.now().plus(lead).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    Instant from = start.plusSeconds(6);
    Instant to = from.plusSeconds(8);
    Instant end = to.plusSeconds(8);
    String schedule =
        "every: 1s\nstart: \""
            + start
            + "\"\nend: \""
            + end
            + "\"\nexclude:\n  - {from: \""
            + from
            + "\", to: \""
            + to
            + "\"}";
    return new Windowed(
        ledger, start, from, to, end, Configs.ledgerJob("windowed", schedule, ledger));
  }

  /**
   * The windowed job ran each firing of {@code [start, from)} and {@code [to, end]} once, and none
   * before start, inside the window or after end. The daemons ran until after {@code end}.
   */
  static void judge(Windowed w) {
    List<Instant> fires =
        Ledger.read(w.ledger()).runs().stream().map(Ledger.Entry::fire).sorted().toList();
    assertThat(fires).as("each windowed firing ran once").doesNotHaveDuplicates();
    List<Instant> expected = new ArrayList<>();
    for (Instant f = w.start(); !f.isAfter(w.end()); f = f.plusSeconds(1)) {
      if (f.isBefore(w.from()) || !f.isBefore(w.to())) {
        expected.add(f);
      }
    }
    assertThat(fires)
        .as("firings from start to end (inclusive) but those in [%s, %s)", w.from(), w.to())
        .containsExactlyElementsOf(expected);
  }

  /**
   * A job every 5 s with {@code overlap: buffer-one} whose firings at a multiple of 15 s run 7 s
   * (past the next firing) and the others 1 s; it writes start and end lines as the grouped jobs,
   * the end line also when the daemon's stop cuts the run.
   */
  static String bufferedJob(Path ledger) {
    String line = "buffered $LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE $$ $(date +%s%N)";
    // the graceful stop TERMs the run's group: the trap writes the end line of a cut run, so the
    // judge sees when it really ended
    String script =
        "trap 'echo \"gend "
            + line
            + "\" >> \""
            + ledger
            + "\"; exit 143' TERM; echo \"gstart "
            + line
            + "\" >> \""
            + ledger
            + "\"; s=$(date -d \"$LEASEHOLD_FIRE_TIME\" +%s);"
            + " if [ $((s % 15)) -eq 0 ]; then sleep 7; else sleep 1; fi; echo \"gend "
            + line
            + "\" >> \""
            + ledger
            + "\"";
    return "name: buffered\nevery: 5s\noverlap: buffer-one\n" + Configs.shell(script);
  }

  /**
   * The buffered job's runs never overlapped, each firing ran once, and each firing due during a
   * long run (at 5 s past a multiple of 15 s) started within 1.5 s of that run's end.
   */
  static void judgeBuffered(Path ledger, Instant stopping) {
    // a 7 s run in flight when the daemons are stopped may be cut by the graceful stop: a run
    // started up to 8 s before the stop may have no end line (the overlap rule still holds for it)
    List<Span> byStart =
        spans(ledger, stopping.minusSeconds(8)).stream()
            .sorted(Comparator.comparingLong(Span::start))
            .toList();
    Set<String> firings = new HashSet<>();
    int waited = 0;
    for (int i = 0; i < byStart.size(); i++) {
      Span span = byStart.get(i);
      assertThat(firings.add(span.fire())).as("%s ran once", span).isTrue();
      if (i == 0) {
        continue;
      }
      Span before = byStart.get(i - 1);
      assertThat(span.start())
          .as("%s starts after %s ended", span, before)
          .isGreaterThanOrEqualTo(before.end());
      long fire = Instant.parse(span.fire()).getEpochSecond();
      if (fire % 15 == 5 && Instant.parse(before.fire()).getEpochSecond() == fire - 5) {
        waited++;
        assertThat(span.start() - before.end())
            .as("%s waited for %s and started within 1.5 s of its end", span, before)
            .isLessThan(1_500_000_000L);
      }
    }
    assertThat(waited)
        .as("firings that waited behind a long run: %s", byStart)
        .isGreaterThanOrEqualTo(2);
  }

  /** A job of group backups, every 5 s, that writes start and end lines around 1.5 s of work. */
  private static String groupJob(String name, Path ledger) {
    String line = name + " $LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE $$ $(date +%s%N)";
    String script =
        "echo \"gstart "
            + line
            + "\" >> \""
            + ledger
            + "\"; sleep 1.5; echo \"gend "
            + line
            + "\" >> \""
            + ledger
            + "\"";
    return "name: "
        + name
        + "\nevery: 5s\ngroup: backups\nmisfire-grace: 10s\n"
        + Configs.shell(script);
  }

  static void withGroups(Path file) {
    try {
      Files.writeString(
          file, "groups:\n  backups:\n    max-concurrent: 1\n" + Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The runs in {@code ledger}; a run without an end line is one the stop interrupted, allowed only
   * when it started after {@code stopping}, and it counts as running to the end of the test.
   */
  static List<Span> spans(Path ledger, Instant stopping) {
    long stoppingNanos = stopping.getEpochSecond() * 1_000_000_000L + stopping.getNano();
    List<String> lines;
    try {
      lines = Files.readAllLines(ledger);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, long[]> open = new HashMap<>();
    Map<String, String[]> fields = new HashMap<>();
    for (String text : lines) {
      String[] t = text.strip().split("\\s+");
      assertThat(t).as("line '%s'", text).hasSize(6);
      String key = t[1] + " " + t[2] + " " + t[3] + " " + t[4];
      long[] times = open.computeIfAbsent(key, k -> new long[] {-1, -1});
      fields.put(key, t);
      times[t[0].equals("gstart") ? 0 : 1] = Long.parseLong(t[5]);
    }
    List<Span> spans = new ArrayList<>();
    open.forEach(
        (key, times) -> {
          String[] t = fields.get(key);
          assertThat(times[0]).as("start of %s", key).isNotEqualTo(-1L);
          if (times[1] == -1) {
            assertThat(times[0])
                .as("%s has no end line: it started after the stop", key)
                .isGreaterThan(stoppingNanos);
            times[1] = Long.MAX_VALUE;
          }
          spans.add(new Span(t[1], t[2], t[3], Long.parseLong(t[4]), times[0], times[1]));
        });
    return spans;
  }
}
