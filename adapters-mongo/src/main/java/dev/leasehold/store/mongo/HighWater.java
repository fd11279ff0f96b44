package dev.leasehold.store.mongo;

import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.max;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest fence and watermark given per name, kept apart from the lease documents so that
 * deleting a lease document by hand ({@code deleteOne({_id: "JOB"})}, the way an operator unlocks a
 * job) sends neither back: one document per name ({@code _id} = the name, {@code fence}, {@code
 * lastFire}) in the collection {@code <lease collection>.fences}, raised with {@code $max} after
 * every claim won and every firing recorded as paused, and this client's own highest fence per
 * name. When a lease document is created again its fence and watermark start from these ({@link
 * #seed}).
 *
 * <p>The raise is a second write after the claim: when it fails (the claim stands, a warning is
 * logged) or the process dies in between, the mark stays one claim behind until the next claim;
 * this client's own fences cover the gap for it. A lease document deleted in that window is
 * restored one fence short on other clients.
 */
final class HighWater {
  private static final Logger LOG = LoggerFactory.getLogger(HighWater.class);
  private static final int MAX_NAMES = 100_000;

  private final MongoCollection<Document> marks;
  private final Map<String, Long> own = new ConcurrentHashMap<>();

  /**
   * @param marks the high-water collection, or {@code null} for none
   */
  HighWater(MongoCollection<Document> marks) {
    this.marks = marks;
  }

  /** The free document's start when nothing is known: fence 0, no watermark. */
  static Document none() {
    return new Document("fence", 0L);
  }

  /** Whether {@code seed} restores anything (a fence or a watermark). */
  static boolean restores(Document seed) {
    return seed.get("fence", Number.class).longValue() > 0 || seed.get("lastFire") != null;
  }

  /**
   * The highest fence and watermark known for {@code name}: {@code fence}, optional {@code
   * lastFire}.
   */
  Document seed(String name) {
    long fence = own.getOrDefault(name, 0L);
    Date lastFire = null;
    if (marks != null) {
      Document mark = marks.find(new Document("_id", name)).first();
      if (mark != null) {
        Number stored = mark.get("fence", Number.class);
        fence = Math.max(fence, stored == null ? 0 : stored.longValue());
        if (mark.get("lastFire") instanceof Date d) {
          lastFire = d;
        }
      }
    }
    Document seed = new Document("fence", fence);
    if (lastFire != null) {
      seed.append("lastFire", lastFire);
    }
    return seed;
  }

  /**
   * Raises the marks of {@code name} to {@code fence} (0: none) and {@code firing} (null: none).
   */
  void granted(String name, long fence, Date firing) {
    if (fence > 0) {
      if (own.size() >= MAX_NAMES) {
        own.clear();
      }
      own.merge(name, fence, Math::max);
    }
    if (marks == null) {
      return;
    }
    List<Bson> raise = new ArrayList<>();
    if (fence > 0) {
      raise.add(max("fence", fence));
    }
    if (firing != null) {
      raise.add(max("lastFire", firing));
    }
    try {
      marks.updateOne(new Document("_id", name), combine(raise), new UpdateOptions().upsert(true));
    } catch (MongoException e) {
      LOG.warn(
          "the high-water mark of {} (fence {}, firing {}) could not be written to {}: {}; it is"
              + " written again by the next claim",
          name,
          fence,
          firing == null ? "-" : Instant.ofEpochMilli(firing.getTime()),
          describe(),
          e.getMessage());
    }
  }

  /** Whether marks are kept apart from the lease documents (the store can then forget). */
  boolean kept() {
    return marks != null;
  }

  /**
   * Raises the marks of {@code name} before its lease document is deleted; unlike {@link #granted}
   * a failure propagates, so a document is never deleted with a mark behind it.
   */
  void raiseBeforeDelete(String name, long fence, Date lastFire) {
    List<Bson> raise = new ArrayList<>();
    raise.add(max("fence", fence));
    if (lastFire != null) {
      raise.add(max("lastFire", lastFire));
    }
    marks.updateOne(new Document("_id", name), combine(raise), new UpdateOptions().upsert(true));
  }

  /** Deletes the marks of a self-check scratch name (nothing is fenced by it). */
  void drop(String name) {
    own.remove(name);
    marks.deleteOne(new Document("_id", name));
  }

  String describe() {
    return marks == null ? "nowhere" : marks.getNamespace().getCollectionName();
  }
}
