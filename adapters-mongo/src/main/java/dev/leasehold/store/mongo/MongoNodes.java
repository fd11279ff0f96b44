package dev.leasehold.store.mongo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import dev.leasehold.core.lease.NodeRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.Document;

/**
 * Node records in the collection {@code <lease collection>_nodes}: one document per node, {@code
 * _id} the node id, with {@code version}, {@code startedAt}, {@code lastSeen}, {@code expiresAt},
 * {@code keptUntil} (dates), {@code jobDigest} and {@code leases} (an array). Written by one
 * upserting {@code replaceOne}; {@link #read} first deletes the documents past {@code keptUntil}
 * (the expiry field checked on read: a TTL index would leave them up to a minute longer), then
 * reads the rest.
 */
final class MongoNodes {
  private final MongoCollection<Document> nodes;

  MongoNodes(MongoCollection<Document> nodes) {
    this.nodes = nodes;
  }

  void publish(NodeRecord record, Duration ttl) {
    NodeRecord n = record.publishedFor(ttl);
    Document doc =
        new Document("_id", n.nodeId())
            .append("version", n.version())
            .append("startedAt", Date.from(n.startedAt()))
            .append("lastSeen", Date.from(n.lastSeen()))
            .append("expiresAt", Date.from(n.expiresAt()))
            .append("keptUntil", Date.from(n.keptUntil()))
            .append("jobDigest", n.jobDigest())
            .append("leases", n.leases());
    MongoErrors.call(
        "node record",
        () ->
            nodes.replaceOne(
                Filters.eq("_id", n.nodeId()), doc, new ReplaceOptions().upsert(true)));
  }

  List<NodeRecord> read() {
    return MongoErrors.call(
        "node list",
        () -> {
          nodes.deleteMany(Filters.lte("keptUntil", new Date()));
          List<NodeRecord> out = new ArrayList<>();
          for (Document d : nodes.find().sort(Sorts.ascending("_id"))) {
            out.add(
                new NodeRecord(
                    d.getString("_id"),
                    d.getString("version"),
                    d.getDate("startedAt").toInstant(),
                    d.getDate("lastSeen").toInstant(),
                    d.getString("jobDigest"),
                    d.getList("leases", String.class),
                    d.getDate("expiresAt").toInstant()));
          }
          out.sort(java.util.Comparator.comparing(NodeRecord::nodeId));
          return out;
        });
  }
}
