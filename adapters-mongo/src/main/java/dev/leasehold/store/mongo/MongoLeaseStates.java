package dev.leasehold.store.mongo;

import com.mongodb.client.MongoCollection;
import dev.leasehold.core.lease.LeaseState;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Reads lease states for {@code status}. One aggregation computes {@code leaseUntil} and {@code
 * held} on the server ({@code $$NOW} in a {@code $project} stage, MongoDB 4.2+), so the answer
 * never depends on the clock of the machine that asks. The collection's read concern is {@code
 * majority}: a state shown is one that no failover can roll back.
 */
final class MongoLeaseStates {
  private MongoLeaseStates() {}

  static List<LeaseState> read(MongoCollection<Document> leases, Bson match) {
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
                    .append("held", new Document("$gt", List.of(leaseEnd, "$$NOW")))));
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
        Boolean.TRUE.equals(d.getBoolean("held")));
  }
}
