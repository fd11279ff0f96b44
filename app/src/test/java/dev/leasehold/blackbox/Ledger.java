package dev.leasehold.blackbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * The file the black-box jobs append to. Every line is one {@code write(2)} with {@code O_APPEND},
 * so the file order is the real order in which the lines were written. Line forms:
 *
 * <ul>
 *   <li>{@code FIRE NODE FENCE}: one run of a firing ({@code $LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE
 *       $LEASEHOLD_FENCE}), tag {@code run};
 *   <li>{@code start FIRE NODE FENCE} / {@code end FIRE NODE FENCE}: a long job began / ended;
 *   <li>{@code killed NODE}: written by the test after it SIGKILLed that node's process group.
 * </ul>
 *
 * @param entries the parsed lines in file order
 * @param malformed lines that fit none of the forms, with their line numbers
 */
public record Ledger(List<Entry> entries, List<String> malformed) {

  /** One parsed line; {@code fire} is null for {@code killed} lines, {@code fence} then -1. */
  public record Entry(int line, String tag, Instant fire, String node, long fence) {
    public boolean isRun() {
      return tag.equals("run") || tag.equals("start");
    }

    @Override
    public String toString() {
      return fire == null
          ? tag + " " + node + " (line " + line + ")"
          : node + " fence " + fence + " (line " + line + ")";
    }
  }

  public static Ledger read(Path file) {
    try {
      return parse(Files.readAllLines(file));
    } catch (NoSuchFileException e) {
      return parse(List.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Ledger parse(List<String> lines) {
    List<Entry> entries = new ArrayList<>();
    List<String> malformed = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String text = lines.get(i).strip();
      if (text.isEmpty()) {
        continue;
      }
      Entry entry = entry(i + 1, text.split("\\s+"));
      if (entry == null) {
        malformed.add("line " + (i + 1) + ": '" + text + "'");
      } else {
        entries.add(entry);
      }
    }
    return new Ledger(List.copyOf(entries), List.copyOf(malformed));
  }

  private static Entry entry(int line, String[] t) {
    try {
      if (t.length == 3) {
        return new Entry(line, "run", Instant.parse(t[0]), t[1], Long.parseLong(t[2]));
      }
      if (t.length == 4 && (t[0].equals("start") || t[0].equals("end"))) {
        return new Entry(line, t[0], Instant.parse(t[1]), t[2], Long.parseLong(t[3]));
      }
      if (t.length == 2 && t[0].equals("killed")) {
        return new Entry(line, "killed", null, t[1], -1);
      }
    } catch (DateTimeParseException | NumberFormatException e) {
      return null;
    }
    return null;
  }

  /** The runs ({@code run} and {@code start} lines) in file order. */
  public List<Entry> runs() {
    return entries.stream().filter(Entry::isRun).toList();
  }

  /** The runs of firings at or after {@code from}. */
  public List<Entry> runsFrom(Instant from) {
    return runs().stream().filter(e -> !e.fire().isBefore(from)).toList();
  }

  /** The last run written, or null. */
  public Entry lastRun() {
    List<Entry> runs = runs();
    return runs.isEmpty() ? null : runs.get(runs.size() - 1);
  }
}
