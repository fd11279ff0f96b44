package dev.leasehold.store.mongo;

import com.mongodb.client.MongoCollection;
import dev.leasehold.core.lease.IncompatibleStoreException;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.Pause;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads lease states for {@code status}. One aggregation computes {@code leaseUntil} and {@code
 * held} on the server ({@code $$NOW} in a {@code $project} stage, MongoDB 4.2+), so the answer
 * never depends on the clock of the machine that asks. The collection's read concern is {@code
 * majority}: a state shown is one that no failover can roll back.
 *
 * <p>A server that does not support that aggregation (some wire-compatible servers lack {@code
 * $add} or {@code $$NOW} there) still gets a status: the documents are read as they are and
 * compared with the server's own time from {@code hello.localTime}, with a warning that says so.
 * Nothing is ever claimed from this answer, so the degraded form costs no safety.
 */
final class MongoLeaseStates {
  private static final Logger LOG = LoggerFactory.getLogger(MongoLeaseStates.class);

  private MongoLeaseStates() {}

  static List<LeaseState> read(
      MongoCollection<Document> leases, Bson match, Supplier<Date> serverNow) {
    try {
      return aggregate(leases, match);
    } catch (IncompatibleStoreException e) {
      if (serverNow == null) {
        throw e;
      }
      LOG.warn(
          "{}; reading the lease documents and comparing them with the server's time instead",
          e.getMessage());
      Date now = MongoErrors.call("read of the server's time", serverNow::get);
      return MongoErrors.call(
          "read of lease documents",
          () -> {
            List<LeaseState> out = new ArrayList<>();
            for (Document d : leases.find(match).sort(new Document("_id", 1))) {
              Date start = d.getDate("leaseStart");
              Number ttl = d.get("ttlMs", Number.class);
              Date until =
                  start == null || ttl == null ? null : new Date(start.getTime() + ttl.longValue());
              d.put("leaseUntil", until);
              d.put("held", until != null && now != null && until.after(now));
              out.add(state(d));
            }
            return out;
          });
    }
  }

  private static List<LeaseState> aggregate(MongoCollection<Document> leases, Bson match) {
    Document leaseEnd = MongoLeaseStore.LEASE_END;
    List<Bson> pipeline =
        List.of(
            new Document("$match", match),
            new Document("$sort", new Document("_id", 1)),
            new Document(
                "$project",
                new Document("holder", 1)
                    .append("lastFire", 1)
                    .append("fence", 1)
                    .append("leaseUntil", leaseEnd)
                    .append("held", new Document("$gt", List.of(leaseEnd, "$$NOW")))
                    .append("paused", 1)
                    .append("pausedBy", 1)
                    .append("pausedReason", 1)
                    .append("pauseStop", 1)));
    return MongoErrors.call(
        "read of lease states",
        () -> {
          List<LeaseState> out = new ArrayList<>();
          for (Document d : leases.aggregate(pipeline)) {
            out.add(state(d));
          }
          return out;
        });
  }

  private static LeaseState state(Document d) {
    Date until = d.getDate("leaseUntil");
    Date lastFire = d.getDate("lastFire");
    Number fence = d.get("fence", Number.class);
    return new LeaseState(
        d.getString("_id"),
        d.getString("holder"),
        until == null ? null : until.toInstant(),
        lastFire == null ? null : lastFire.toInstant(),
        fence == null ? 0 : fence.longValue(),
        Boolean.TRUE.equals(d.getBoolean("held")),
        d.getDate("paused") == null
            ? null
            : new Pause(
                d.getDate("paused").toInstant(),
                d.getString("pausedBy"),
                d.getString("pausedReason"),
                Boolean.TRUE.equals(d.getBoolean("pauseStop"))));
  }
}
