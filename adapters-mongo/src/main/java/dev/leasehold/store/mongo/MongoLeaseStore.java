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
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.DeletedRecords;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
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
public final class MongoLeaseStore implements LeaseStore, Pauses, NodeRecords, Forgetting {
  private static final Logger LOG = LoggerFactory.getLogger(MongoLeaseStore.class);
  static final Document LEASE_END = new Document("$add", List.of("$leaseStart", "$ttlMs"));
  private static final Document EXPIRED = new Document("$lte", List.of(LEASE_END, "$$NOW"));
  private static final Document LIVE = new Document("$gt", List.of(LEASE_END, "$$NOW"));

  private final MongoCollection<Document> leases;
  private final HighWater highWater;
  private final Runnable onClose;
  private final Supplier<Date> serverNow;
  private final FindOneAndUpdateOptions afterUpdate;
  private volatile MongoNodes nodes;

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
    this(leases, null, serverNow, onClose);
  }

  /**
   * @param highWater the collection of high-water documents ({@link HighWater}), or {@code null}
   *     for none (then a deleted lease document is restored from this client's own fences only)
   */
  MongoLeaseStore(
      MongoCollection<Document> leases,
      MongoCollection<Document> highWater,
      Supplier<Date> serverNow,
      Runnable onClose) {
    this.leases = leases;
    this.highWater = new HighWater(highWater);
    this.serverNow = serverNow;
    this.onClose = onClose;
    this.afterUpdate = new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    return decide(name, firing, holder, ttl, true);
  }

  /**
   * The claim; when refused, the paused claim ({@link #recordPaused}); when that is refused too and
   * {@code why}, the reason read back (a hint, as the port's default).
   */
  private ClaimResult decide(
      String name, Instant firing, String holder, Duration ttl, boolean why) {
    LeaseArguments.name(name);
    Date at = Date.from(LeaseArguments.firing(firing));
    Optional<Lease> won = take(name, holder, ttl, at);
    if (won.isPresent()) {
      return ClaimResult.won(won.get());
    }
    if (recordPaused(name, at)) {
      return ClaimResult.paused(at.toInstant());
    }
    return why ? ClaimResult.refusal(inspect(name), at.toInstant()) : ClaimResult.held(null, null);
  }

  /**
   * A claim of a paused name: one conditional update ({@code _id}, {@code paused} present, the
   * watermark before the firing) that moves the watermark and {@code pausedFire} to the firing and
   * stamps this claim's token in {@code pauseClaim}, starting no lease. Atomic like the claim: of
   * racing callers only one matches, and the answer carries its token.
   */
  private boolean recordPaused(String name, Date firing) {
    String token = LeaseArguments.newToken();
    Document paused =
        new Document("_id", name)
            .append("paused", new Document("$exists", true))
            .append(
                "$or",
                List.of(
                    new Document("lastFire", new Document("$lt", firing)),
                    new Document("lastFire", new Document("$exists", false))));
    Document recorded =
        MongoErrors.call(
            "claim of " + name,
            () ->
                leases.findOneAndUpdate(
                    paused,
                    combine(
                        set("lastFire", firing),
                        set("pausedFire", firing),
                        set("pauseClaim", token)),
                    afterUpdate));
    boolean ours = recorded != null && token.equals(recorded.getString("pauseClaim"));
    if (ours) {
      highWater.granted(name, 0, firing);
    }
    return ours;
  }

  /**
   * Writes who and why, then stamps {@code paused} with the server's clock where it is not yet set
   * (the claim's filter sees it from then on); a name never leased first gets its free document.
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    MongoErrors.call(
        "pause of " + name,
        () -> {
          createFree(name, highWater.seed(name));
          leases.updateOne(
              new Document("_id", name),
              combine(
                  set("pausedBy", by), set("pausedReason", reason), set("pauseStop", stopRunning)));
          leases.updateOne(
              new Document("_id", name).append("paused", new Document("$exists", false)),
              currentDate("paused"));
          return null;
        });
    return inspect(name)
        .map(LeaseState::pause)
        .orElseThrow(() -> new LeaseStoreException("MongoDB pause of " + name + " was lost"));
  }

  /**
   * One conditional update that removes the pause, guarded by the watermark it read; with catch-up
   * it also lowers that watermark by a millisecond when it is the firing a paused claim recorded.
   */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    return MongoErrors.call(
        "resume of " + name,
        () -> {
          while (true) {
            Document d = leases.find(new Document("_id", name)).first();
            if (d == null || d.get("paused") == null) {
              return false;
            }
            Date last = d.getDate("lastFire");
            boolean rollBack = catchUp && last != null && last.equals(d.getDate("pausedFire"));
            List<Bson> changes =
                new ArrayList<>(
                    List.of(
                        unset("paused"),
                        unset("pausedBy"),
                        unset("pausedReason"),
                        unset("pauseStop")));
            if (rollBack) {
              changes.add(set("lastFire", new Date(last.getTime() - 1)));
            }
            Document guard =
                new Document("_id", name)
                    .append("paused", new Document("$exists", true))
                    .append("lastFire", last == null ? new Document("$exists", false) : last);
            if (leases.updateOne(guard, combine(changes)).getMatchedCount() == 1) {
              return true;
            }
          }
        });
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
      free.append("paused", new Document("$exists", false));
      free.append(
          "$or",
          List.of(
              new Document("lastFire", new Document("$lt", firing)),
              new Document("lastFire", new Document("$exists", false))));
    }
    Bson update = combine(changes);
    Document[] seeded = new Document[1];
    Document won =
        MongoErrors.call(
            "claim of " + name,
            () -> {
              Document taken = leases.findOneAndUpdate(free, update, afterUpdate);
              if (taken == null) {
                Document seed = highWater.seed(name);
                if (createFree(name, seed)) {
                  seeded[0] = seed;
                  taken = leases.findOneAndUpdate(free, update, afterUpdate);
                }
              }
              return taken;
            });
    Lease lease = won == null ? null : checked(name, holder, token, ttlMs, won);
    // the client that put the seed back logs it, whether or not its own update then won: another
    // replica's claim may take the restored document first, and that one did not see the delete
    if (seeded[0] != null && HighWater.restores(seeded[0])) {
      String what =
          "its document in "
              + leases.getNamespace().getCollectionName()
              + " was missing; fence and watermark taken from "
              + highWater.describe()
              + " and this client's own fences";
      long known = seeded[0].get("fence", Number.class).longValue();
      LOG.warn(
          lease != null && token.equals(won.getString("token"))
              ? DeletedRecords.restored(name, what, known, lease.fence())
              : DeletedRecords.restored(name, what, known));
    }
    if (lease == null) {
      LOG.debug("lease {} is held or its firing was already claimed", name);
      return Optional.empty();
    }
    highWater.granted(name, lease.fence(), firing);
    return Optional.of(lease);
  }

  /**
   * Inserts the free document of a name never leased ({@code fence 0}, ended at the epoch), or of a
   * name whose document was deleted by hand (fence and watermark from {@code seed}, the highest
   * known: {@link HighWater}), so that the conditional update can take it. True when this call
   * inserted it; false when it exists (duplicate key 11000 on {@code _id}: someone else created it,
   * and the refusal stands). The insert names its {@code _id} itself, the most basic write there
   * is, and what it wrote is counted back, so a server that files it under another key or accepts a
   * second document with the same {@code _id} is caught here instead of letting two callers each
   * take "their" document.
   */
  private boolean createFree(String name, Document seed) {
    try {
      Document free =
          new Document("_id", name)
              .append("fence", seed.get("fence", Number.class).longValue())
              .append("ttlMs", 0L)
              .append("leaseStart", new Date(0));
      if (seed.get("lastFire") instanceof Date last) {
        free.append("lastFire", last);
      }
      leases.insertOne(free);
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
                            .append("$expr", LIVE)
                            .append(
                                "$or",
                                List.of(
                                    new Document("paused", new Document("$exists", false)),
                                    new Document("pauseStop", new Document("$ne", true)))),
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

  /**
   * The server's {@code hello.localTime}: the clock of {@code $$NOW} and {@code $currentDate}, so
   * of every lease's start and expiry. Empty for a store made without a way to read it.
   */
  @Override
  public Optional<Instant> storeTime() {
    if (serverNow == null) {
      return Optional.empty();
    }
    return Optional.of(MongoErrors.call("read of the server's time", serverNow::get).toInstant());
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    return MongoLeaseStates.read(leases, new Document("_id", name), serverNow).stream().findFirst();
  }

  /**
   * Reads the document, raises its high-water marks to its fence and watermark, then deletes it
   * with one {@code deleteOne} whose filter requires the fence read (no claim came in between), no
   * pause and an expired lease on {@code $$NOW}. For a self-check scratch name the marks go too.
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    if (!highWater.kept()) {
      throw new UnsupportedOperationException("this client keeps no high-water marks");
    }
    boolean scratch = dev.leasehold.core.store.StoreSelfCheck.isScratch(name);
    return MongoErrors.call(
        "forget of " + name,
        () -> {
          Document doc = leases.find(new Document("_id", name)).first();
          if (doc == null || doc.get("paused") != null || doc.get("fence") == null) {
            return false;
          }
          if (!scratch) {
            highWater.raiseBeforeDelete(
                name, doc.get("fence", Number.class).longValue(), doc.getDate("lastFire"));
          }
          Document filter =
              new Document("_id", name)
                  .append("fence", doc.get("fence"))
                  .append("paused", new Document("$exists", false))
                  .append("$expr", EXPIRED);
          boolean deleted = leases.deleteOne(filter).getDeletedCount() == 1;
          if (deleted && scratch) {
            highWater.drop(name);
          }
          return deleted;
        });
  }

  /** Keeps node records in {@code collection} ({@link MongoNodes}); returns this store. */
  MongoLeaseStore keepingNodes(MongoCollection<Document> collection) {
    this.nodes = new MongoNodes(collection);
    return this;
  }

  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord node, Duration ttl) {
    if (nodes == null) {
      throw new UnsupportedOperationException("this client keeps no node records");
    }
    nodes.publish(node, ttl);
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    if (nodes == null) {
      throw new UnsupportedOperationException("this client keeps no node records");
    }
    return nodes.read();
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
