package dev.leasehold.blackbox;

import dev.leasehold.blackbox.Ledger.Entry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Judges a {@link Ledger} against the schedule of an epoch-aligned {@code every} job, by what ran,
 * never by how long anything took. The rules, in order of severity:
 *
 * <ol>
 *   <li><b>One run per firing</b> (G1, the hard rule, no exceptions, over the whole ledger): no
 *       firing appears on two lines.
 *   <li><b>Fences rise with firings</b> (G6): sorted by firing, fences strictly increase.
 *   <li><b>Every firing runs</b> (G1, G3): every scheduled instant inside the observation window
 *       has a line, except inside a declared fault window {@code [fault, fault + ttl + slack]},
 *       where a dead or paused holder's lease may block the job until its TTL ends.
 *   <li><b>On schedule</b>: every firing is one of the job's instants.
 *   <li>Optionally, <b>no overlap</b> (G4/G5): with {@code start}/{@code end} lines, no run starts
 *       while another is running; a {@code killed NODE} line ends that node's open runs.
 * </ol>
 *
 * Each problem names the firing, the nodes, fences and ledger lines involved.
 */
public final class LedgerChecker {
  private final Duration period;
  private Instant from;
  private Instant to;
  private boolean noOverlap;
  private final List<Fault> faults = new ArrayList<>();

  /** A span in which missing firings are excused. */
  public record Fault(String what, Instant start, Instant end) {
    boolean covers(Instant firing) {
      return !firing.isBefore(start) && !firing.isAfter(end);
    }

    @Override
    public String toString() {
      return what + " [" + start + ", " + end + "]";
    }
  }

  /** The verdict: problems (empty when the ledger is clean) and a one-line summary. */
  public record Verdict(List<String> problems, String summary) {
    public boolean clean() {
      return problems.isEmpty();
    }

    /** Throws an AssertionError listing every problem, then the ledger. */
    public void assertClean(Ledger ledger) {
      if (!clean()) {
        throw new AssertionError(report(ledger));
      }
    }

    public String report(Ledger ledger) {
      StringBuilder out = new StringBuilder("ledger check failed (" + summary + "):\n");
      problems.forEach(p -> out.append("  - ").append(p).append('\n'));
      out.append("ledger:\n");
      ledger.entries().forEach(e -> out.append("  ").append(line(e)).append('\n'));
      ledger.malformed().forEach(m -> out.append("  malformed ").append(m).append('\n'));
      return out.toString();
    }

    private static String line(Entry e) {
      return e.line()
          + ": "
          + e.tag()
          + " "
          + (e.fire() == null ? "" : e.fire() + " ")
          + e.node()
          + (e.fence() < 0 ? "" : " " + e.fence());
    }
  }

  private LedgerChecker(Duration period) {
    this.period = period;
  }

  /** For a job {@code every: period} (no offset): firings at whole multiples of the period. */
  public static LedgerChecker every(Duration period) {
    return new LedgerChecker(period);
  }

  /** Every scheduled firing in {@code [from, to]} must have run (outside fault windows). */
  public LedgerChecker window(Instant from, Instant to) {
    this.from = from;
    this.to = to;
    return this;
  }

  /** Firings in {@code [start, end]} may be missing. */
  public LedgerChecker fault(String what, Instant start, Instant end) {
    faults.add(new Fault(what, start, end));
    return this;
  }

  /** Also check that no two runs overlap ({@code start}/{@code end}/{@code killed} lines). */
  public LedgerChecker noOverlap() {
    this.noOverlap = true;
    return this;
  }

  public Verdict check(Ledger ledger) {
    List<String> problems = new ArrayList<>();
    ledger.malformed().forEach(m -> problems.add("malformed ledger " + m));
    TreeMap<Instant, List<Entry>> byFiring =
        ledger.runs().stream()
            .collect(Collectors.groupingBy(Entry::fire, TreeMap::new, Collectors.toList()));
    duplicates(byFiring, problems);
    fences(byFiring, problems);
    offSchedule(byFiring, problems);
    int excused = from == null ? 0 : missing(byFiring, problems);
    if (noOverlap) {
      overlaps(ledger, problems);
    }
    return new Verdict(List.copyOf(problems), summary(ledger, byFiring, excused));
  }

  private static void duplicates(Map<Instant, List<Entry>> byFiring, List<String> problems) {
    byFiring.forEach(
        (firing, runs) -> {
          if (runs.size() > 1) {
            problems.add("DUPLICATE: firing " + firing + " ran " + runs.size() + " times: " + runs);
          }
        });
  }

  private static void fences(TreeMap<Instant, List<Entry>> byFiring, List<String> problems) {
    Entry previous = null;
    for (List<Entry> runs : byFiring.values()) {
      Entry lowest = runs.stream().min(Comparator.comparingLong(Entry::fence)).orElseThrow();
      Entry highest = runs.stream().max(Comparator.comparingLong(Entry::fence)).orElseThrow();
      if (previous != null && lowest.fence() <= previous.fence()) {
        problems.add(
            "FENCE not rising: firing "
                + lowest.fire()
                + " ran with "
                + lowest
                + " after earlier firing "
                + previous.fire()
                + " ran with "
                + previous);
      }
      previous = highest;
    }
  }

  private void offSchedule(Map<Instant, List<Entry>> byFiring, List<String> problems) {
    byFiring.forEach(
        (firing, runs) -> {
          if (firing.toEpochMilli() % period.toMillis() != 0) {
            problems.add(
                "OFF SCHEDULE: firing " + firing + " is not a multiple of " + period + ": " + runs);
          }
        });
  }

  /** Reports unexcused missing firings; returns how many missing ones fault windows excused. */
  private int missing(Map<Instant, List<Entry>> byFiring, List<String> problems) {
    int excused = 0;
    long p = period.toMillis();
    long first = Math.floorDiv(from.toEpochMilli() + p - 1, p) * p;
    for (long t = first; t <= to.toEpochMilli(); t += p) {
      Instant firing = Instant.ofEpochMilli(t);
      if (byFiring.containsKey(firing)) {
        continue;
      }
      if (faults.stream().anyMatch(f -> f.covers(firing))) {
        excused++;
      } else {
        problems.add(
            "MISSING: firing "
                + firing
                + " never ran and lies in no fault window "
                + (faults.isEmpty() ? "(none declared)" : faults.toString()));
      }
    }
    return excused;
  }

  private static void overlaps(Ledger ledger, List<String> problems) {
    Map<String, Entry> open = new LinkedHashMap<>();
    for (Entry e : ledger.entries()) {
      switch (e.tag()) {
        case "start" -> {
          if (!open.isEmpty()) {
            problems.add(
                "OVERLAP: run of firing "
                    + e.fire()
                    + " on "
                    + e
                    + " started while still running: "
                    + open.values().stream().map(o -> "firing " + o.fire() + " on " + o).toList());
          }
          open.put(e.fire() + " " + e.node(), e);
        }
        case "end" -> open.remove(e.fire() + " " + e.node());
        case "killed" -> open.values().removeIf(o -> o.node().equals(e.node()));
        default -> {}
      }
    }
  }

  private String summary(Ledger ledger, Map<Instant, List<Entry>> byFiring, int excused) {
    Map<String, Long> perNode =
        ledger.runs().stream()
            .collect(Collectors.groupingBy(Entry::node, TreeMap::new, Collectors.counting()));
    return ledger.runs().size()
        + " runs of "
        + byFiring.size()
        + " firings, per node "
        + perNode
        + (from == null ? "" : ", window [" + from + ", " + to + "]")
        + ", missing firings excused by fault windows: "
        + excused
        + (faults.isEmpty() ? "" : " " + faults);
  }
}
