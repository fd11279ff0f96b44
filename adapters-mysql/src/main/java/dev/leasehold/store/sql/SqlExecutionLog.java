package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.ATTEMPT;
import static dev.leasehold.store.sql.Tables.DETAIL;
import static dev.leasehold.store.sql.Tables.EXECUTION;
import static dev.leasehold.store.sql.Tables.EXIT_CODE;
import static dev.leasehold.store.sql.Tables.FINISHED_AT;
import static dev.leasehold.store.sql.Tables.FIRE_TIME;
import static dev.leasehold.store.sql.Tables.ID;
import static dev.leasehold.store.sql.Tables.JOB;
import static dev.leasehold.store.sql.Tables.NODE;
import static dev.leasehold.store.sql.Tables.OUTCOME;
import static dev.leasehold.store.sql.Tables.OUTPUT;
import static dev.leasehold.store.sql.Tables.RUN_FENCE;
import static dev.leasehold.store.sql.Tables.STARTED_AT;
import static dev.leasehold.store.sql.Tables.TRIGGER_KIND;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * {@link ExecutionLog} in the table {@code task_execution}, next to the leases. One INSERT per
 * record (plain JDBC); {@link #recent} reads through the index on {@code (job, started_at)}.
 * Database failures surface as {@link dev.leasehold.core.lease.LeaseStoreException}.
 */
public final class SqlExecutionLog implements ExecutionLog {
  private final DataSource dataSource;
  private final DSLContext db;
  private final String recentOfJob;
  private final String recentOfAll;

  /**
   * @param dataSource connections as the store's factory configures them (UTC sessions)
   */
  public SqlExecutionLog(DataSource dataSource, SQLDialect dialect) {
    this.dataSource = dataSource;
    this.db = SqlSupport.dsl(dataSource, dialect);
    this.recentOfJob = recentStatement(true);
    this.recentOfAll = recentStatement(false);
  }

  /** Plain JDBC, rendered once: one INSERT per run, on every firing's path. */
  private static final String INSERT =
      "INSERT INTO task_execution (job, fire_time, node, fence, trigger_kind, started_at,"
          + " finished_at, outcome, exit_code, detail, output, attempt)"
          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  @Override
  public void record(ExecutionRecord r) {
    Objects.requireNonNull(r, "record");
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(1, r.job());
      ps.setObject(2, utc(r.fireTime()));
      ps.setString(3, r.node());
      ps.setLong(4, r.fence());
      ps.setString(5, r.trigger().name());
      ps.setObject(6, utc(r.startedAt()));
      ps.setObject(7, utc(r.finishedAt()));
      ps.setString(8, r.outcome().name());
      if (r.exitCode() == null) {
        ps.setNull(9, Types.INTEGER);
      } else {
        ps.setInt(9, r.exitCode());
      }
      ps.setString(10, r.detail());
      ps.setString(11, r.output());
      ps.setInt(12, r.attempt());
      ps.executeUpdate();
    } catch (SQLException e) {
      throw SqlSupport.failure("recording an execution of " + r.job(), e);
    }
  }

  /** As {@link Tables#UTC} binds it: UTC wall time at millisecond precision. */
  private static LocalDateTime utc(Instant instant) {
    return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC);
  }

  /**
   * Rendered once by jOOQ for the dialect, run through JDBC: {@link #recent} is on a poll path
   * (every daemon reads the trigger queue each second, notifiers read a job's last rows), where
   * building and rendering the query each time cost more CPU than the database's answer.
   */
  private String recentStatement(boolean ofOneJob) {
    return db.select(
            JOB,
            FIRE_TIME,
            NODE,
            RUN_FENCE,
            TRIGGER_KIND,
            STARTED_AT,
            FINISHED_AT,
            OUTCOME,
            EXIT_CODE,
            DETAIL,
            OUTPUT,
            ATTEMPT)
        .from(EXECUTION)
        .where(ofOneJob ? JOB.eq(DSL.param("job", String.class)) : DSL.noCondition())
        .orderBy(STARTED_AT.desc(), ID.desc())
        .limit(DSL.param("limit", Integer.class))
        .getSQL(ParamType.INDEXED);
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(job == null ? recentOfAll : recentOfJob)) {
      int index = 1;
      if (job != null) {
        ps.setString(index++, job);
      }
      ps.setInt(index, limit);
      List<ExecutionRecord> records = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          records.add(toRecord(rs));
        }
      }
      return records;
    } catch (SQLException e) {
      throw SqlSupport.failure("reading the execution history", e);
    }
  }

  /** A row of {@link #recentStatement}, its columns in the order selected. */
  private static ExecutionRecord toRecord(ResultSet rs) throws SQLException {
    String job = rs.getString(1);
    Instant fireTime = SqlSupport.instant(rs, 2);
    String node = rs.getString(3);
    long fence = rs.getLong(4);
    TriggerKind trigger = TriggerKind.valueOf(rs.getString(5));
    Instant startedAt = SqlSupport.instant(rs, 6);
    Instant finishedAt = SqlSupport.instant(rs, 7);
    Outcome outcome = Outcome.valueOf(rs.getString(8));
    int exitCode = rs.getInt(9);
    Integer exit = rs.wasNull() ? null : exitCode;
    String detail = rs.getString(10);
    String output = rs.getString(11);
    int attempt = rs.getInt(12);
    if (rs.wasNull()) {
      attempt = 1; // rows written before attempts were counted
    }
    return new ExecutionRecord(
        job,
        fireTime,
        node,
        fence,
        trigger,
        startedAt,
        finishedAt,
        outcome,
        exit,
        detail,
        output,
        attempt);
  }

  /**
   * Two steps, each a SELECT of at most {@code limit} ids through an index, then one DELETE of
   * those ids by primary key: rows finished before the cutoff (index on {@code finished_at}), then
   * rows of jobs over {@code max-per-job}, found with one grouped count over the {@code (job,
   * started_at)} index and cut below the job's newest {@code max-per-job}. No statement locks more
   * than the rows it deletes, so claims (on {@code task_lock}) and history writes go on meanwhile.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    try {
      int removed =
          delete(
              db.select(ID)
                  .from(EXECUTION)
                  .where(FINISHED_AT.lt(retention.cutoff(now)))
                  .orderBy(FINISHED_AT)
                  .limit(limit)
                  .fetch(ID));
      if (removed == limit) {
        return removed;
      }
      List<String> crowded =
          db.select(JOB)
              .from(EXECUTION)
              .groupBy(JOB)
              .having(DSL.count().gt(retention.maxPerJob()))
              .fetch(JOB);
      for (String job : crowded) {
        removed +=
            delete(
                db.select(ID)
                    .from(EXECUTION)
                    .where(JOB.eq(job))
                    .orderBy(STARTED_AT.desc(), ID.desc())
                    .limit(limit - removed)
                    .offset(retention.maxPerJob())
                    .fetch(ID));
        if (removed == limit) {
          break;
        }
      }
      return removed;
    } catch (DataAccessException e) {
      throw SqlSupport.failure("pruning the execution history", e);
    }
  }

  private int delete(List<Long> ids) {
    return ids.isEmpty() ? 0 : db.deleteFrom(EXECUTION).where(ID.in(ids)).execute();
  }
}
