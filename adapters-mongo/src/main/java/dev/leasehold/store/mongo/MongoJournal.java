package dev.leasehold.store.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Sorts;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;

/**
 * The journal in two collections beside the leases. {@code <lease collection>_journal}: one
 * document per entry, {@code _id} its id (which sorts by time first, {@link JournalArguments}),
 * {@code stream}, {@code at} (a date, for whoever reads it by hand) and {@code body}; {@code
 * recent} is a find on the stream sorted by {@code _id} descending (index {@code stream_id}),
 * {@code prune} one {@code deleteMany} of the stream's ids below the floor. {@code <lease
 * collection>_journal_keys}: one document per key, {@code _id} the key; {@code putIfAbsent} is an
 * {@code insertOne} that the unique {@code _id} decides (a duplicate-key error is the loser's),
 * then a find of the winner's value.
 */
final class MongoJournal implements Journal {
  private final MongoCollection<Document> entries;
  private final MongoCollection<Document> values;
  private volatile boolean indexed;

  MongoJournal(MongoCollection<Document> entries, MongoCollection<Document> values) {
    this.entries = entries;
    this.values = values;
  }

  @Override
  public JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    MongoErrors.call(
        "journal append",
        () -> {
          ensureIndex();
          return entries.insertOne(
              new Document("_id", entry.id())
                  .append("stream", stream)
                  .append("at", Date.from(entry.at()))
                  .append("body", body));
        });
    return entry;
  }

  @Override
  public List<JournalEntry> recent(String stream, int limit) {
    JournalArguments.stream(stream);
    JournalArguments.limit(limit);
    return MongoErrors.call(
        "journal read",
        () -> {
          List<JournalEntry> out = new ArrayList<>();
          for (Document d :
              entries
                  .find(Filters.eq("stream", stream))
                  .sort(Sorts.descending("_id"))
                  .limit(limit)) {
            out.add(JournalArguments.entry(stream, d.getString("_id"), d.getString("body")));
          }
          return List.copyOf(out);
        });
  }

  @Override
  public int prune(String stream, Instant before) {
    JournalArguments.stream(stream);
    String floor = JournalArguments.idFloor(before);
    return MongoErrors.call(
        "journal prune",
        () ->
            (int)
                entries
                    .deleteMany(Filters.and(Filters.eq("stream", stream), Filters.lt("_id", floor)))
                    .getDeletedCount());
  }

  @Override
  public String putIfAbsent(String key, String value) {
    JournalArguments.key(key);
    JournalArguments.value(value);
    return MongoErrors.call(
        "journal key",
        () -> {
          try {
            values.insertOne(new Document("_id", key).append("value", value));
            return value;
          } catch (MongoException e) {
            if (!MongoErrors.isDuplicateKey(e)) {
              throw e;
            }
          }
          Document held = values.find(Filters.eq("_id", key)).first();
          if (held == null || held.getString("value") == null) {
            throw new LeaseStoreException(
                "MongoDB journal key " + key + ": refused as present, then not found");
          }
          return held.getString("value");
        });
  }

  /** The index {@code (stream, _id)} that {@code recent} and {@code prune} read by, made once. */
  private void ensureIndex() {
    if (indexed) {
      return;
    }
    try {
      entries.createIndex(
          Indexes.compoundIndex(Indexes.ascending("stream"), Indexes.descending("_id")),
          new IndexOptions().name("stream_id"));
    } catch (MongoException e) {
      if (!MongoErrors.isUnsupported(e)) {
        throw e;
      }
    }
    indexed = true;
  }
}
