package dev.leasehold.core.testing;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The reference {@link Journal}: one monitor, each stream a map sorted by entry id (which sorts by
 * time first, {@link JournalArguments}). Shared by the clients of one {@link InMemoryLeaseStore}
 * server.
 */
public final class InMemoryJournal implements Journal {
  private final Map<String, NavigableMap<String, JournalEntry>> streams = new HashMap<>();
  private final Map<String, String> values = new HashMap<>();

  @Override
  public synchronized JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    streams.computeIfAbsent(stream, s -> new TreeMap<>()).put(entry.id(), entry);
    return entry;
  }

  @Override
  public synchronized List<JournalEntry> recent(String stream, int limit) {
    JournalArguments.stream(stream);
    JournalArguments.limit(limit);
    return streams.getOrDefault(stream, new TreeMap<>()).descendingMap().values().stream()
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized int prune(String stream, Instant before) {
    JournalArguments.stream(stream);
    String floor = JournalArguments.idFloor(before);
    NavigableMap<String, JournalEntry> entries = streams.getOrDefault(stream, new TreeMap<>());
    NavigableMap<String, JournalEntry> old = entries.headMap(floor, false);
    int n = old.size();
    old.clear();
    return n;
  }

  @Override
  public synchronized String putIfAbsent(String key, String value) {
    JournalArguments.key(key);
    JournalArguments.value(value);
    return values.computeIfAbsent(key, k -> value);
  }
}
