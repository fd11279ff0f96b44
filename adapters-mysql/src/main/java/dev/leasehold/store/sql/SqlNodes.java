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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.UpdateSetMoreStep;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * Node records in the table {@code task_node} (migration V4): one row per node id, written by an
 * update or, for a node seen the first time, an insert (an insert that loses a race to another
 * client's insert of the same id updates instead). SQL has no expiry of its own: {@link #read}
 * reads the rows, leaves out those past {@code kept_until} and, only when there are any, deletes
 * them (so a read is one statement as a rule, not two).
 *
 * <p>Every daemon publishes and reads every few seconds, so the statements are rendered once by
 * jOOQ for the dialect and run through JDBC: building and rendering them each time cost more CPU
 * than the database's answers.
 */
final class SqlNodes {
  /** The columns every write sets, in the order of the statements' parameters. */
  private static final List<Field<?>> WRITTEN =
      List.of(VERSION, NODE_STARTED, LAST_SEEN, EXPIRES_AT, KEPT_UNTIL, JOB_DIGEST, NODE_LEASES);

  private final DataSource dataSource;
  private final Rendered update;
  private final Rendered insert;
  private final Rendered deleteExpired;
  private final Rendered select;

  SqlNodes(DSLContext db, DataSource dataSource) {
    this.dataSource = dataSource;
    this.update = Rendered.by(() -> renderUpdate(db));
    List<Field<?>> columns = new ArrayList<>(WRITTEN);
    columns.add(NODE_ID);
    this.insert =
        Rendered.by(
            () ->
                db.insertInto(NODE_TABLE)
                    .columns(columns)
                    .values(columns.stream().map(DSL::param).toList())
                    .getSQL(ParamType.INDEXED));
    this.deleteExpired =
        Rendered.by(
            () ->
                db.deleteFrom(NODE_TABLE)
                    .where(KEPT_UNTIL.le(DSL.param(KEPT_UNTIL)))
                    .getSQL(ParamType.INDEXED));
    this.select =
        Rendered.by(
            () ->
                db.select(
                        NODE_ID,
                        VERSION,
                        NODE_STARTED,
                        LAST_SEEN,
                        EXPIRES_AT,
                        JOB_DIGEST,
                        NODE_LEASES,
                        KEPT_UNTIL)
                    .from(NODE_TABLE)
                    .getSQL(ParamType.INDEXED));
  }

  private static String renderUpdate(DSLContext db) {
    UpdateSetMoreStep<Record> set = db.update(NODE_TABLE).set(VERSION, DSL.param(VERSION));
    for (Field<?> column : WRITTEN.subList(1, WRITTEN.size())) {
      set = setParameter(set, column);
    }
    return set.where(NODE_ID.eq(DSL.param(NODE_ID))).getSQL(ParamType.INDEXED);
  }

  private static <T> UpdateSetMoreStep<Record> setParameter(
      UpdateSetMoreStep<Record> update, Field<T> column) {
    return update.set(column, DSL.param(column));
  }

  void publish(NodeRecord record, Duration ttl) {
    NodeRecord n = record.publishedFor(ttl);
    try (Connection c = dataSource.getConnection()) {
      for (int attempt = 0; attempt < 3; attempt++) {
        try (PreparedStatement ps = c.prepareStatement(update.get())) {
          int next = bind(ps, n);
          ps.setString(next, n.nodeId());
          if (ps.executeUpdate() > 0) {
            return;
          }
        }
        try (PreparedStatement ps = c.prepareStatement(insert.get())) {
          int next = bind(ps, n);
          ps.setString(next, n.nodeId());
          ps.executeUpdate();
          return;
        } catch (SQLException e) {
          if (!SqlSupport.isRace(e)) {
            throw e;
          }
          // another client inserted this id meanwhile: update it
        }
      }
    } catch (SQLException e) {
      throw SqlSupport.failure("node record", e);
    }
  }

  /** Sets the {@link #WRITTEN} columns from parameter 1 on; returns the next parameter's index. */
  private static int bind(PreparedStatement ps, NodeRecord n) throws SQLException {
    ps.setString(1, n.version());
    ps.setObject(2, SqlSupport.utc(n.startedAt()));
    ps.setObject(3, SqlSupport.utc(n.lastSeen()));
    ps.setObject(4, SqlSupport.utc(n.expiresAt()));
    ps.setObject(5, SqlSupport.utc(n.keptUntil()));
    ps.setString(6, n.jobDigest());
    ps.setString(7, String.join("\n", n.leases()));
    return 8;
  }

  List<NodeRecord> read() {
    Instant now = Instant.now();
    try (Connection c = dataSource.getConnection()) {
      List<Kept> rows;
      try (PreparedStatement ps = c.prepareStatement(select.get())) {
        rows = SqlSupport.rows(ps, rs -> new Kept(record(rs), SqlSupport.instant(rs, 8)));
      }
      List<NodeRecord> records = new ArrayList<>();
      boolean expired = false;
      for (Kept row : rows) {
        if (row.keptUntil() != null && !row.keptUntil().isAfter(now)) {
          expired = true;
        } else {
          records.add(row.record());
        }
      }
      if (expired) {
        try (PreparedStatement ps = c.prepareStatement(deleteExpired.get())) {
          ps.setObject(1, SqlSupport.utc(now));
          ps.executeUpdate();
        }
      }
      records.sort(Comparator.comparing(NodeRecord::nodeId));
      return List.copyOf(records);
    } catch (SQLException e) {
      throw SqlSupport.failure("node list", e);
    }
  }

  /** A row of {@link #select} and when it is dropped. */
  private record Kept(NodeRecord record, Instant keptUntil) {}

  /** A row of {@link #select}, its columns in the order selected. */
  private static NodeRecord record(ResultSet rs) throws SQLException {
    String nodeId = rs.getString(1);
    String version = rs.getString(2);
    Instant startedAt = SqlSupport.instant(rs, 3);
    Instant lastSeen = SqlSupport.instant(rs, 4);
    Instant expiresAt = SqlSupport.instant(rs, 5);
    String jobDigest = rs.getString(6);
    String leases = rs.getString(7);
    return new NodeRecord(
        nodeId,
        version,
        startedAt,
        lastSeen,
        jobDigest,
        leases == null || leases.isEmpty() ? List.of() : Arrays.asList(leases.split("\n")),
        expiresAt);
  }
}
