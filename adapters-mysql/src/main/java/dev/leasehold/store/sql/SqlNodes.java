package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.EXPIRES_AT;
import static dev.leasehold.store.sql.Tables.JOB_DIGEST;
import static dev.leasehold.store.sql.Tables.KEPT_UNTIL;
import static dev.leasehold.store.sql.Tables.LAST_SEEN;
import static dev.leasehold.store.sql.Tables.NODE_ID;
import static dev.leasehold.store.sql.Tables.NODE_LEASES;
import static dev.leasehold.store.sql.Tables.NODE_STARTED;
import static dev.leasehold.store.sql.Tables.NODE_TABLE;
import static dev.leasehold.store.sql.Tables.VERSION;

import dev.leasehold.core.lease.NodeRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.exception.DataAccessException;
import org.jooq.exception.IntegrityConstraintViolationException;

/**
 * Node records in the table {@code task_node} (migration V4): one row per node id, written by an
 * update or, for a node seen the first time, an insert (an insert that loses a race to another
 * client's insert of the same id updates instead). SQL has no expiry of its own: {@link #read}
 * first deletes the rows past {@code kept_until}, then reads the rest.
 */
final class SqlNodes {
  private final DSLContext db;

  SqlNodes(DSLContext db) {
    this.db = db;
  }

  void publish(NodeRecord record, Duration ttl) {
    NodeRecord n = record.publishedFor(ttl);
    Map<Field<?>, Object> values =
        Map.of(
            VERSION, n.version(),
            NODE_STARTED, n.startedAt(),
            LAST_SEEN, n.lastSeen(),
            EXPIRES_AT, n.expiresAt(),
            KEPT_UNTIL, n.keptUntil(),
            JOB_DIGEST, n.jobDigest(),
            NODE_LEASES, String.join("\n", n.leases()));
    try {
      for (int attempt = 0; attempt < 3; attempt++) {
        if (db.update(NODE_TABLE).set(values).where(NODE_ID.eq(n.nodeId())).execute() > 0) {
          return;
        }
        try {
          db.insertInto(NODE_TABLE).set(NODE_ID, n.nodeId()).set(values).execute();
          return;
        } catch (IntegrityConstraintViolationException race) {
          // another client inserted this id meanwhile: update it
        }
      }
    } catch (DataAccessException e) {
      throw SqlSupport.failure("node record", e);
    }
  }

  List<NodeRecord> read() {
    try {
      db.deleteFrom(NODE_TABLE).where(KEPT_UNTIL.le(Instant.now())).execute();
      return db
          .select(NODE_ID, VERSION, NODE_STARTED, LAST_SEEN, EXPIRES_AT, JOB_DIGEST, NODE_LEASES)
          .from(NODE_TABLE)
          .fetch(SqlNodes::record)
          .stream()
          .sorted(Comparator.comparing(NodeRecord::nodeId))
          .toList();
    } catch (DataAccessException e) {
      throw SqlSupport.failure("node list", e);
    }
  }

  private static NodeRecord record(Record r) {
    String leases = r.get(NODE_LEASES);
    return new NodeRecord(
        r.get(NODE_ID),
        r.get(VERSION),
        r.get(NODE_STARTED),
        r.get(LAST_SEEN),
        r.get(JOB_DIGEST),
        leases == null || leases.isEmpty() ? List.of() : Arrays.asList(leases.split("\n")),
        r.get(EXPIRES_AT));
  }
}
