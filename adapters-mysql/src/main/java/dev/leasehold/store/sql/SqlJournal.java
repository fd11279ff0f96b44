package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.BODY;
import static dev.leasehold.store.sql.Tables.ENTRY_AT;
import static dev.leasehold.store.sql.Tables.ENTRY_ID;
import static dev.leasehold.store.sql.Tables.JOURNAL;
import static dev.leasehold.store.sql.Tables.JOURNAL_KEY;
import static dev.leasehold.store.sql.Tables.JOURNAL_KEY_NAME;
import static dev.leasehold.store.sql.Tables.KEY_VALUE;
import static dev.leasehold.store.sql.Tables.STREAM;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * The journal in the tables {@code task_journal} and {@code task_journal_key} (migration V7). An
 * entry is one {@code INSERT} under an id that sorts by time ({@link JournalArguments}): {@code
 * recent} reads {@code ORDER BY id DESC} through the index {@code (stream, id)}, {@code prune}
 * deletes {@code id < floor} of the stream. {@code putIfAbsent} is an {@code INSERT} that the
 * primary key decides (a loser's duplicate-key error is its answer), then a {@code SELECT} of the
 * value that won. Each statement runs alone in autocommit, rendered once by jOOQ.
 */
final class SqlJournal implements Journal {
  private final DataSource dataSource;
  private final Rendered insert;
  private final Rendered recent;
  private final Rendered prune;
  private final Rendered insertKey;
  private final Rendered selectKey;

  SqlJournal(DSLContext db, DataSource dataSource) {
    this.dataSource = dataSource;
    this.insert =
        Rendered.by(
            () ->
                db.insertInto(JOURNAL, ENTRY_ID, STREAM, ENTRY_AT, BODY)
                    .values(
                        DSL.param(ENTRY_ID),
                        DSL.param(STREAM),
                        DSL.param(ENTRY_AT),
                        DSL.param(BODY))
                    .getSQL(ParamType.INDEXED));
    this.recent =
        Rendered.by(
            () ->
                db.select(ENTRY_ID, BODY)
                    .from(JOURNAL)
                    .where(STREAM.eq(DSL.param(STREAM)))
                    .orderBy(ENTRY_ID.desc())
                    .limit(DSL.param("limit", Integer.class))
                    .getSQL(ParamType.INDEXED));
    this.prune =
        Rendered.by(
            () ->
                db.deleteFrom(JOURNAL)
                    .where(STREAM.eq(DSL.param(STREAM)))
                    .and(ENTRY_ID.lt(DSL.param(ENTRY_ID)))
                    .getSQL(ParamType.INDEXED));
    this.insertKey =
        Rendered.by(
            () ->
                db.insertInto(JOURNAL_KEY, JOURNAL_KEY_NAME, KEY_VALUE)
                    .values(DSL.param(JOURNAL_KEY_NAME), DSL.param(KEY_VALUE))
                    .getSQL(ParamType.INDEXED));
    this.selectKey =
        Rendered.by(
            () ->
                db.select(KEY_VALUE)
                    .from(JOURNAL_KEY)
                    .where(JOURNAL_KEY_NAME.eq(DSL.param(JOURNAL_KEY_NAME)))
                    .getSQL(ParamType.INDEXED));
  }

  @Override
  public JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(insert.get())) {
      ps.setString(1, entry.id());
      ps.setString(2, stream);
      ps.setObject(3, SqlSupport.utc(entry.at()));
      ps.setString(4, body);
      ps.executeUpdate();
      return entry;
    } catch (SQLException e) {
      throw SqlSupport.failure("journal append", e);
    }
  }

  @Override
  public List<JournalEntry> recent(String stream, int limit) {
    JournalArguments.stream(stream);
    JournalArguments.limit(limit);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(recent.get())) {
      ps.setString(1, stream);
      ps.setInt(2, limit);
      return List.copyOf(
          SqlSupport.rows(
              ps, rs -> JournalArguments.entry(stream, rs.getString(1), nonNull(rs.getString(2)))));
    } catch (SQLException e) {
      throw SqlSupport.failure("journal read", e);
    }
  }

  @Override
  public int prune(String stream, Instant before) {
    JournalArguments.stream(stream);
    String floor = JournalArguments.idFloor(before);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(prune.get())) {
      ps.setString(1, stream);
      ps.setString(2, floor);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw SqlSupport.failure("journal prune", e);
    }
  }

  @Override
  public String putIfAbsent(String key, String value) {
    JournalArguments.key(key);
    JournalArguments.value(value);
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(insertKey.get())) {
        ps.setString(1, key);
        ps.setString(2, value);
        ps.executeUpdate();
        return value;
      } catch (SQLException e) {
        if (!SqlSupport.isRace(e)) {
          throw e;
        }
        // the key is there already: its value is the answer
      }
      try (PreparedStatement ps = c.prepareStatement(selectKey.get())) {
        ps.setString(1, key);
        List<String> values = SqlSupport.rows(ps, rs -> nonNull(rs.getString(1)));
        if (values.isEmpty()) {
          throw new SQLException("journal key " + key + " refused as present, then not found");
        }
        return values.get(0);
      }
    } catch (SQLException e) {
      throw SqlSupport.failure("journal key", e);
    }
  }

  /** An empty text read back as SQL NULL (a database that stores '' so) is still empty. */
  private static String nonNull(String text) {
    return text == null ? "" : text;
  }
}
