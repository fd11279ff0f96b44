package dev.leasehold.core.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a {@link Journal} stream.
 *
 * @param stream the stream it belongs to
 * @param id unique within the store, assigned by the store
 * @param at the time the writer gave it, to the millisecond
 * @param body the text the writer gave it
 */
public record JournalEntry(String stream, String id, Instant at, String body) {
  public JournalEntry {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(body, "body");
  }
}
