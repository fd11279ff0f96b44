package dev.leasehold.store.mongo;

import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on MongoDB: one document per lease name in one collection, {@code _id} = the
 * name, so the unique {@code _id} index is the lock. Fields: {@code holder}, {@code token}, {@code
 * fence}, {@code lastFire} (the watermark), {@code leaseStart} (written by the server with {@code
 * $currentDate}) and {@code ttlMs}. A lease is live while {@code leaseStart + ttlMs > $$NOW}; both
 * times are the server's, so no replica's clock is ever compared with another's (G2).
 *
 * <p><b>Claim and acquire.</b> One {@code findOneAndUpdate} without upsert whose filter holds the
 * whole condition as one flat document ({@code _id} equal to the name, the lease expired by {@code
 * $expr} on {@code $$NOW}, and for a claim {@code lastFire < firing} or absent); its update sets
 * holder, token, TTL and watermark, increments the fence and stamps {@code leaseStart} with {@code
 * $currentDate}. A single-document update is atomic, so of two racing callers only one can match an
 * expired document; the other's filter no longer matches. A name never leased has no document to
 * match: then the caller inserts its free document ({@code fence 0}, ended at the epoch) with a
 * plain {@code insertOne} (a duplicate-key error means someone else just did) and runs the same
 * update once more, so every race is decided by that one conditional update. There is no upsert:
 * MongoDB refuses {@code $expr} in an upsert's filter (error 224), and wire-compatible servers have
 * been seen to insert an upsert under a generated {@code _id} when its filter was not a plain
 * equality. What the server answers is checked, not only that it answered: the document updated
 * must be the one named, carry the new token and a fence of at least 1, and a first insert must
 * leave exactly one document under the name; anything else is an {@link IncompatibleStoreException}
 * (fail closed, and named as what the server did wrong).
 *
 * <p><b>Renew and release</b> are one {@code updateOne} each with the token in the filter (G7);
 * renew also requires the lease to be live on the server clock, so an expired lease cannot be
 * revived. Release unsets holder and token and ends the lease now ({@code ttlMs = 0}), keeping
 * watermark and fence.
 *
 * <p><b>Concerns.</b> Writes use {@code w:majority}, so an acknowledged claim survives a failover;
 * an unacknowledged or timed-out write is a {@link LeaseStoreException} (not acquired; the lease
 * may then block its name until its TTL ends, which is fail-closed). Writes need no read concern: a
 * {@code findOneAndUpdate} always decides on the primary's current document. Reads for {@link
 * #inspect} and {@link #list} use read concern {@code majority}: {@code status} never shows a lease
 * that a failover could roll back; {@code local} could, and {@code linearizable} would add a round
 * of replication to every status call for no decision that depends on it, since no claim is ever
 * made from what these reads return.
 */
public final class MongoLeaseStore implements LeaseStore {
  private static final Logger LOG = LoggerFactory.getLogger(MongoLeaseStore.class);
  static final Document LEASE_END = new Document("$add", List.of("$leaseStart", "$ttlMs"));
  private static final Document EXPIRED = new Document("$lte", List.of(LEASE_END, "$$NOW"));
  private static final Document LIVE = new Document("$gt", List.of(LEASE_END, "$$NOW"));

  private final MongoCollection<Document> leases;
  private final Runnable onClose;
  private final Supplier<Date> serverNow;
  private final FindOneAndUpdateOptions afterUpdate;

  /**
   * @param leases the lease collection, with write concern majority and read concern majority
   * @param onClose what {@link #close()} releases (the client, when this store owns it)
   */
  MongoLeaseStore(MongoCollection<Document> leases, Runnable onClose) {
    this(leases, null, onClose);
  }

  /**
   * @param serverNow the server's current time ({@code hello.localTime}) for a {@code status} on a
   *     server without the aggregation operators, or {@code null}
   */
  MongoLeaseStore(MongoCollection<Document> leases, Supplier<Date> serverNow, Runnable onClose) {
    this.leases = leases;
    this.serverNow = serverNow;
    this.onClose = onClose;
    this.afterUpdate = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    return take(name, holder, ttl, Date.from(LeaseArguments.firing(firing)));
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    return take(name, holder, ttl, null);
  }

  /** Claim ({@code firing} given) or acquire ({@code firing} null); see the class comment. */
  private Optional<Lease> take(String name, String holder, Duration ttl, Date firing) {
    LeaseArguments.holder(holder);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    String token = LeaseArguments.newToken();
    List<Bson> changes =
        new ArrayList<>(
            List.of(
                set("holder", holder),
                set("token", token),
                set("ttlMs", ttlMs),
                inc("fence", 1L),
                currentDate("leaseStart")));
    // one flat document: an equality on _id and the other conditions beside it, no $and
    Document free = new Document("_id", name).append("$expr", EXPIRED);
    if (firing != null) {
      changes.add(set("lastFire", firing));
      free.append(
          "$or",
          List.of(
              new Document("lastFire", new Document("$lt", firing)),
              new Document("lastFire", new Document("$exists", false))));
    }
    Bson update = combine(changes);
    Document won =
        MongoErrors.call(
            "claim of " + name,
            () -> {
              Document taken = leases.findOneAndUpdate(free, update, afterUpdate);
              if (taken == null && createFree(name)) {
                taken = leases.findOneAndUpdate(free, update, afterUpdate);
              }
              return taken;
            });
    if (won == null) {
      LOG.debug("lease {} is held or its firing was already claimed", name);
      return Optional.empty();
    }
    return Optional.of(checked(name, holder, token, ttlMs, won));
  }

  /**
   * Inserts the free document of a name never leased ({@code fence 0}, ended at the epoch), so that
   * the conditional update can take it. True when this call inserted it; false when it exists
   * (duplicate key 11000 on {@code _id}: someone else created it, and the refusal stands). The
   * insert names its {@code _id} itself, the most basic write there is, and what it wrote is
   * counted back, so a server that files it under another key or accepts a second document with the
   * same {@code _id} is caught here instead of letting two callers each take "their" document.
   */
  private boolean createFree(String name) {
    try {
      leases.insertOne(
          new Document("_id", name)
              .append("fence", 0L)
              .append("ttlMs", 0L)
              .append("leaseStart", new Date(0)));
    } catch (MongoException e) {
      if (MongoErrors.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
    int stored = leases.find(new Document("_id", name)).limit(2).into(new ArrayList<>()).size();
    if (stored != 1) {
      throw new IncompatibleStoreException(
          "MongoDB claim of "
              + name
              + ": the server holds "
              + stored
              + " documents with _id "
              + name
              + " after inserting one (the unique _id did not hold)");
    }
    return true;
  }

  /**
   * The lease from the document the server says it updated, after checking that it is the one
   * named, carries this claim's token, and that the fence moved: a server that matched another
   * document, or ignored part of the update, fails closed here with what it did wrong.
   */
  private static Lease checked(String name, String holder, String token, long ttlMs, Document d) {
    Object id = d.get("_id");
    if (!name.equals(id)) {
      throw new IncompatibleStoreException(
          "MongoDB claim of "
              + name
              + ": the server updated the document with _id "
              + id
              + " instead of the one named");
    }
    Number fence = d.get("fence", Number.class);
    if (!token.equals(d.getString("token"))
        || fence == null
        || fence.longValue() < 1
        || !(d.get("leaseStart") instanceof Date)) {
      throw new IncompatibleStoreException(
          "MongoDB claim of "
              + name
              + ": the server's answer does not show the update it acknowledged (token, fence "
              + fence
              + ", leaseStart)");
    }
    return new Lease(name, holder, token, fence.longValue(), Duration.ofMillis(ttlMs), end(d));
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMs = LeaseArguments.ttlMillis(ttl);
    long matched =
        MongoErrors.call(
            "renewal of " + lease.name(),
            () ->
                leases
                    .updateOne(
                        new Document("_id", lease.name())
                            .append("token", lease.token())
                            .append("$expr", LIVE),
                        combine(set("ttlMs", ttlMs), currentDate("leaseStart")))
                    .getMatchedCount());
    if (matched == 0) {
      LOG.warn("lease {} could not be renewed: it expired or was taken", lease);
    }
    return matched == 1;
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    long matched =
        MongoErrors.call(
            "release of " + lease.name(),
            () ->
                leases
                    .updateOne(
                        new Document("_id", lease.name()).append("token", lease.token()),
                        combine(
                            unset("token"),
                            unset("holder"),
                            set("ttlMs", 0L),
                            currentDate("leaseStart")))
                    .getMatchedCount());
    if (matched == 0) {
      LOG.debug("release of {} refused: the token no longer holds it", lease);
    }
    return matched == 1;
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    return MongoLeaseStates.read(leases, new Document("_id", name), serverNow).stream().findFirst();
  }

  @Override
  public List<LeaseState> list() {
    return MongoLeaseStates.read(leases, new Document(), serverNow);
  }

  /** {@code leaseStart + ttlMs} of a returned document: the expiry on the server's clock. */
  private static Instant end(Document d) {
    return d.getDate("leaseStart").toInstant().plusMillis(d.get("ttlMs", Number.class).longValue());
  }

  @Override
  public void close() {
    onClose.run();
  }
}
