package dev.leasehold.core.check;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The journal of one in-memory store, shared by every replica of a test (like one server). */
final class MemoryJournal implements Journal {
  private final List<JournalEntry> entries = new ArrayList<>();
  private final Map<String, String> values = new HashMap<>();
  private long ids;

  @Override
  public synchronized JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry =
        new JournalEntry(
            stream, Long.toString(++ids), Instant.ofEpochMilli(at.toEpochMilli()), body);
    entries.add(entry);
    return entry;
  }

  @Override
  public synchronized List<JournalEntry> recent(String stream, int limit) {
    return entries.stream()
        .filter(e -> e.stream().equals(stream))
        .sorted(
            Comparator.comparing(JournalEntry::at)
                .thenComparing(e -> Long.parseLong(e.id()))
                .reversed())
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized int prune(String stream, Instant before) {
    int size = entries.size();
    entries.removeIf(e -> e.stream().equals(stream) && e.at().isBefore(before));
    return size - entries.size();
  }

  @Override
  public synchronized String putIfAbsent(String key, String value) {
    return values.computeIfAbsent(key, k -> value);
  }

  synchronized int size() {
    return entries.size();
  }
}
