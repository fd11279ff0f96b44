package dev.leasehold.core.lease;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Argument checks and entry ids shared by every {@link Journal}, so that all stores refuse the same
 * bad input with the same {@link IllegalArgumentException}, before the store is touched.
 *
 * <p>An entry id is {@value #ID_LENGTH} lower-case hex digits: 16 of the entry's time in epoch
 * milliseconds, 12 of a sequence of the writing process (starting at a random value) and 8 random
 * ones. Ids therefore sort as text by time first, then, for one writer, in the order it appended: a
 * store that sorts its entries by id sorts them "by {@code at}, then by id" as {@link
 * Journal#recent} asks, and the entries of a stream before an instant are exactly the ids below
 * {@link #idFloor}. Every store of this repository uses them, so an id is the same on every node of
 * a Redlock and the union of several nodes' entries is a union by id.
 */
public final class JournalArguments {
  /** The length of every entry id. */
  public static final int ID_LENGTH = 36;

  /** The earliest entry time a journal keeps. */
  public static final Instant EARLIEST = Instant.EPOCH;

  /** The first instant a journal no longer keeps (year 10000). */
  public static final Instant END = Instant.parse("+10000-01-01T00:00:00Z");

  /** The longest value {@link Journal#putIfAbsent} keeps, as for a body. */
  public static final int MAX_VALUE = Journal.MAX_BODY;

  /** The most entries one {@link Journal#recent} returns. */
  public static final int MAX_LIMIT = 10_000;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final AtomicLong SEQUENCE = new AtomicLong(RANDOM.nextLong() >>> 24);

  private JournalArguments() {}

  /** A valid stream name (the rule of lease names). */
  public static String stream(String stream) {
    return named("journal stream", stream);
  }

  /** A valid key of {@link Journal#putIfAbsent} (the rule of lease names). */
  public static String key(String key) {
    return named("journal key", key);
  }

  private static String named(String what, String name) {
    String problem = LeaseNames.problem(name);
    if (problem != null) {
      throw new IllegalArgumentException(what + " " + problem);
    }
    return name;
  }

  /** A body of at most {@link Journal#MAX_BODY} characters of text. */
  public static String body(String body) {
    return text("journal body", body, Journal.MAX_BODY);
  }

  /** A value of at most {@link #MAX_VALUE} characters of text. */
  public static String value(String value) {
    return text("journal value", value, MAX_VALUE);
  }

  /**
   * Text every store keeps exactly: no NUL (PostgreSQL refuses it in text) and no half of a
   * surrogate pair (it has no UTF-8 form, so it would come back as a {@code ?}).
   */
  private static String text(String what, String text, int max) {
    if (text == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    if (text.length() > max) {
      throw new IllegalArgumentException(
          what + " must be at most " + max + " characters, got " + text.length());
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        throw new IllegalArgumentException(what + " must not contain the character U+0000");
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(
            what + " must be Unicode text: half a surrogate pair at character " + i);
      }
    }
    return text;
  }

  /** The entry time to the millisecond, between {@link #EARLIEST} and {@link #END}. */
  public static Instant at(Instant at) {
    return time("journal entry time", at);
  }

  /** The bound of {@link Journal#prune}, to the millisecond. */
  public static Instant before(Instant before) {
    if (before == null) {
      throw new IllegalArgumentException("journal prune bound must not be null");
    }
    if (before.isAfter(END)) {
      return END;
    }
    return before.isBefore(EARLIEST) ? EARLIEST : before.truncatedTo(ChronoUnit.MILLIS);
  }

  private static Instant time(String what, Instant at) {
    if (at == null) {
      throw new IllegalArgumentException(what + " must not be null");
    }
    if (at.isBefore(EARLIEST) || !at.isBefore(END)) {
      throw new IllegalArgumentException(
          what + " must be from " + EARLIEST + " and before the year 10000, got " + at);
    }
    return at.truncatedTo(ChronoUnit.MILLIS);
  }

  /** A limit of {@link Journal#recent}: 1 to {@link #MAX_LIMIT}. */
  public static int limit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "journal limit must be 1 to " + MAX_LIMIT + ", got " + limit);
    }
    return limit;
  }

  /**
   * A new entry of {@code stream} at {@code at} (to the millisecond) with {@code body} and a new
   * id, once all three pass their rules: what every store's {@link Journal#append} writes.
   */
  public static JournalEntry newEntry(String stream, Instant at, String body) {
    stream(stream);
    Instant time = at(at);
    body(body);
    return new JournalEntry(stream, newId(time), time, body);
  }

  /** A new entry id for an entry at {@code at} (already checked by {@link #at}). */
  public static String newId(Instant at) {
    return "%016x%012x%08x"
        .formatted(
            at.toEpochMilli(),
            SEQUENCE.incrementAndGet() & 0xffff_ffff_ffffL,
            RANDOM.nextInt() & 0xffff_ffffL);
  }

  /** Every id of an entry before {@code before} sorts as text below this one, the others not. */
  public static String idFloor(Instant before) {
    return "%016x".formatted(before(before).toEpochMilli());
  }

  /** The time of the entry {@code id}. */
  public static Instant atOf(String id) {
    if (id == null || id.length() != ID_LENGTH) {
      throw new IllegalArgumentException("not a journal entry id: " + id);
    }
    return Instant.ofEpochMilli(Long.parseUnsignedLong(id.substring(0, 16), 16));
  }

  /** The entry of {@code stream} whose id is {@code id}. */
  public static JournalEntry entry(String stream, String id, String body) {
    return new JournalEntry(stream, id, atOf(id), body);
  }
}
