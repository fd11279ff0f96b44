package dev.leasehold.store.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Filters.expr;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
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
 * <p><b>Claim and acquire.</b> Step 1 is one {@code findOneAndUpdate} without upsert whose filter
 * holds the whole condition ({@code _id}, lease expired by {@code $expr} on {@code $$NOW}, and for
 * a claim {@code lastFire < firing} or absent); its update sets holder, token, TTL and watermark,
 * increments the fence and stamps {@code leaseStart} with {@code $currentDate}. A single-document
 * update is atomic, so of two racing callers only one can match an expired document; the other's
 * filter no longer matches. Step 2 runs only when step 1 matched nothing, to create the first lease
 * of a new name: the same update as an upsert on {@code {_id: name, fence: {$exists: false}}}, a
 * filter that no lease document ever matches, so it can only insert; if the document exists (held,
 * or the firing already claimed), the unique {@code _id} refuses the insert with error 11000 and
 * the call answers empty. The two steps are needed because MongoDB refuses {@code $expr} in the
 * filter of an upsert (error 224), and pipeline updates (the other way to reach {@code $$NOW}) are
 * not available on the wire-compatible test server.
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
  private static final Bson EXPIRED = expr(new Document("$lte", List.of(LEASE_END, "$$NOW")));
  private static final Bson LIVE = expr(new Document("$gt", List.of(LEASE_END, "$$NOW")));

  private final MongoCollection<Document> leases;
  private final Runnable onClose;
  private final FindOneAndUpdateOptions afterUpdate;
  private final FindOneAndUpdateOptions afterInsert;

  /**
   * @param leases the lease collection, with write concern majority and read concern majority
   * @param onClose what {@link #close()} releases (the client, when this store owns it)
   */
  MongoLeaseStore(MongoCollection<Document> leases, Runnable onClose) {
    this.leases = leases;
    this.onClose = onClose;
    this.afterUpdate = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
    this.afterInsert =
        new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER).upsert(true);
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
    List<Bson> conditions = new ArrayList<>(List.of(eq("_id", name), EXPIRED));
    if (firing != null) {
      changes.add(set("lastFire", firing));
      conditions.add(or(lt("lastFire", firing), exists("lastFire", false)));
    }
    Bson update = combine(changes);
    Bson free = and(conditions);
    Document won =
        MongoErrors.call(
            "claim of " + name,
            () -> {
              Document taken = leases.findOneAndUpdate(free, update, afterUpdate);
              return taken != null ? taken : insertFirst(name, update);
            });
    if (won == null) {
      LOG.debug("lease {} is held or its firing was already claimed", name);
      return Optional.empty();
    }
    if (!token.equals(won.getString("token"))) {
      throw new LeaseStoreException(
          "MongoDB claim of " + name + " returned a document without the new token");
    }
    return Optional.of(
        new Lease(name, holder, token, won.getLong("fence"), Duration.ofMillis(ttlMs), end(won)));
  }

  /** The first lease of a new name, or null when the document already exists (error 11000). */
  private Document insertFirst(String name, Bson update) {
    try {
      return leases.findOneAndUpdate(
          and(eq("_id", name), exists("fence", false)), update, afterInsert);
    } catch (MongoException e) {
      if (MongoErrors.isDuplicateKey(e)) {
        return null;
      }
      throw e;
    }
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
                        and(eq("_id", lease.name()), eq("token", lease.token()), LIVE),
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
                        and(eq("_id", lease.name()), eq("token", lease.token())),
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
    return MongoLeaseStates.read(leases, eq("_id", name)).stream().findFirst();
  }

  @Override
  public List<LeaseState> list() {
    return MongoLeaseStates.read(leases, new Document());
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
