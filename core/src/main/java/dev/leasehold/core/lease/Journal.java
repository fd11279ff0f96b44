package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.List;

/**
 * The port of a store that keeps small append-only record streams and write-once values: the audit
 * trail, the pings of heartbeat checks, job-chain hand-offs, backfill requests, and a namespace's
 * digest key. A store that has it returns it from {@link
 * dev.leasehold.core.store.StoreBackend#journal}. Specified by the {@code JournalCases} of the
 * store kit.
 *
 * <p>Stream names and keys follow the rules of lease names ({@link LeaseNames}); a body is opaque
 * text (the callers write JSON) of at most {@link #MAX_BODY} characters.
 */
public interface Journal {
  /** The longest body {@link #append} accepts. */
  int MAX_BODY = 8192;

  /**
   * Appends an entry to {@code stream}, durably, once this returns.
   *
   * @param at the entry's time, as the caller's clock reads it (kept to the millisecond)
   * @return the stored entry with its id, unique within the store
   */
  JournalEntry append(String stream, Instant at, String body);

  /**
   * The newest entries of {@code stream}, newest first (by {@code at}, then by id), at most {@code
   * limit}.
   */
  List<JournalEntry> recent(String stream, int limit);

  /**
   * Deletes the entries of {@code stream} whose time is before {@code before}.
   *
   * @return how many were deleted
   */
  int prune(String stream, Instant before);

  /**
   * Stores {@code value} under {@code key} unless a value is already there, in one atomic step:
   * every caller, on any node, gets the same answer, the value of the first writer.
   *
   * @return the value stored under {@code key} after this call
   */
  String putIfAbsent(String key, String value);
}
