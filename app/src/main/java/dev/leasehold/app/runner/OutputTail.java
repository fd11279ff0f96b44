package dev.leasehold.app.runner;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.store.Redaction;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.TreeMap;

/**
 * The last lines a run printed, for its history record: at most {@link #limit} bytes (UTF-8) of
 * whole lines, older lines dropped first. Each line is scrubbed of secrets as it arrives, as the
 * log scrubs it, so no secret is ever held here. A single line longer than the whole tail keeps its
 * end.
 *
 * <p>Both output pumps of a process add to one tail, each line at the place {@link PipeOrder} gives
 * it, and lines are kept in that order: stdout and stderr interleave in the order they were written
 * as closely as two pipes can tell, and a stderr line written after a backlog of stdout is the last
 * line kept, not the first one dropped, even when its pump got it first.
 */
final class OutputTail {
  private record Key(long place, long arrival) {}

  private static final Comparator<Key> ORDER =
      Comparator.comparingLong(Key::place).thenComparingLong(Key::arrival);

  private final int limit;
  private final TreeMap<Key, String> lines = new TreeMap<>(ORDER);
  private long arrivals;
  private int bytes;
  private long droppedBytes;

  OutputTail(int limit) {
    if (limit < 16) {
      throw new IllegalArgumentException("an output tail needs at least 16 bytes, got " + limit);
    }
    this.limit = limit;
  }

  /** A tail of the default size, {@value ExecutionRecord#OUTPUT_TAIL} bytes. */
  static OutputTail ofDefaultSize() {
    return new OutputTail(ExecutionRecord.OUTPUT_TAIL);
  }

  /** Adds a line at {@code place} ({@link PipeOrder#place}): after the lines placed lower. */
  synchronized void add(long place, String line) {
    String clean = Redaction.scrub(line);
    int size = utf8(clean) + 1; // the line break
    if (size > limit) {
      droppedBytes += size - limit;
      clean = endOf(clean, limit - 1);
      size = utf8(clean) + 1;
    }
    lines.put(new Key(place, arrivals++), clean);
    bytes += size;
    while (bytes > limit) {
      int gone = utf8(lines.pollFirstEntry().getValue()) + 1;
      bytes -= gone;
      droppedBytes += gone;
    }
  }

  /** The kept lines, with a first line saying how much came before them; null when none. */
  synchronized String text() {
    if (lines.isEmpty()) {
      return null;
    }
    String kept = String.join("\n", lines.values());
    return droppedBytes == 0 ? kept : "[" + droppedBytes + " earlier bytes not kept]\n" + kept;
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** The longest end of {@code s} of at most {@code max} UTF-8 bytes, whole characters only. */
  private static String endOf(String s, int max) {
    int from = s.length();
    int size = 0;
    while (from > 0) {
      int cp = s.codePointBefore(from);
      int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (size + n > max) {
        break;
      }
      size += n;
      from -= Character.charCount(cp);
    }
    return s.substring(from);
  }
}
