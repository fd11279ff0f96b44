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
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * {@link ExecutionLog} in the table {@code task_execution}, next to the leases. One INSERT per
 * record (plain JDBC); {@link #recent} reads through the index on {@code (job, started_at)}.
 * Database failures surface as {@link dev.leasehold.core.lease.LeaseStoreException}.
 */
public final class SqlExecutionLog implements ExecutionLog {
  private final DataSource dataSource;
  private final DSLContext db;
  private final Rendered recentOfJob;
  private final Rendered recentOfAll;
  private final Rendered finishedBefore;
  private final Rendered crowdedJobs;
  private final Rendered newestOfJob;
  private final Rendered deleteIds;

  /** Ids per DELETE of {@link #prune}. */
  private static final int DELETE_CHUNK = 100;

  /**
   * @param dataSource connections as the store's factory configures them (UTC sessions)
   */
  public SqlExecutionLog(DataSource dataSource, SQLDialect dialect) {
    this.dataSource = dataSource;
    this.db = SqlSupport.dsl(dataSource, dialect);
    this.recentOfJob = Rendered.by(() -> recentStatement(true));
    this.recentOfAll = Rendered.by(() -> recentStatement(false));
    this.finishedBefore =
        Rendered.by(
            () ->
                db.select(ID)
                    .from(EXECUTION)
                    .where(FINISHED_AT.lt(DSL.param(FINISHED_AT)))
                    .orderBy(FINISHED_AT)
                    .limit(DSL.param("limit", Integer.class))
                    .getSQL(ParamType.INDEXED));
    this.crowdedJobs =
        Rendered.by(
            () ->
                db.select(JOB)
                    .from(EXECUTION)
                    .groupBy(JOB)
                    .having(DSL.count().gt(DSL.param("max", Integer.class)))
                    .getSQL(ParamType.INDEXED));
    this.newestOfJob =
        Rendered.by(
            () ->
                db.select(ID)
                    .from(EXECUTION)
                    .where(JOB.eq(DSL.param(JOB)))
                    .orderBy(STARTED_AT.desc(), ID.desc())
                    .limit(DSL.param("limit", Integer.class))
                    .getSQL(ParamType.INDEXED));
    this.deleteIds =
        Rendered.by(
            () ->
                db.deleteFrom(EXECUTION)
                    .where(ID.in(Collections.nCopies(DELETE_CHUNK, DSL.param(ID))))
                    .getSQL(ParamType.INDEXED));
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
      ps.setObject(2, SqlSupport.utc(r.fireTime()));
      ps.setString(3, r.node());
      ps.setLong(4, r.fence());
      ps.setString(5, r.trigger().name());
      ps.setObject(6, SqlSupport.utc(r.startedAt()));
      ps.setObject(7, SqlSupport.utc(r.finishedAt()));
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
        PreparedStatement ps =
            c.prepareStatement((job == null ? recentOfAll : recentOfJob).get())) {
      int index = 1;
      if (job != null) {
        ps.setString(index++, job);
      }
      ps.setInt(index, limit);
      return SqlSupport.rows(ps, SqlExecutionLog::toRecord);
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
    try (Connection c = dataSource.getConnection()) {
      List<Long> expired;
      try (PreparedStatement ps = c.prepareStatement(finishedBefore.get())) {
        ps.setObject(1, SqlSupport.utc(retention.cutoff(now)));
        ps.setInt(2, limit);
        expired = SqlSupport.rows(ps, rs -> rs.getLong(1));
      }
      int removed = delete(c, expired);
      if (removed == limit) {
        return removed;
      }
      List<String> crowded;
      try (PreparedStatement ps = c.prepareStatement(crowdedJobs.get())) {
        ps.setInt(1, retention.maxPerJob());
        crowded = SqlSupport.rows(ps, rs -> rs.getString(1));
      }
      for (String job : crowded) {
        List<Long> newest;
        try (PreparedStatement ps = c.prepareStatement(newestOfJob.get())) {
          ps.setString(1, job);
          ps.setInt(
              2, (int) Math.min(Integer.MAX_VALUE, (long) retention.maxPerJob() + limit - removed));
          newest = SqlSupport.rows(ps, rs -> rs.getLong(1));
        }
        // the job's newest max-per-job rows stay; those after them go (an OFFSET would say the
        // same, but its parameter comes before or after LIMIT's depending on the database)
        removed +=
            delete(
                c, newest.subList(Math.min(retention.maxPerJob(), newest.size()), newest.size()));
        if (removed == limit) {
          break;
        }
      }
      return removed;
    } catch (SQLException e) {
      throw SqlSupport.failure("pruning the execution history", e);
    }
  }

  /**
   * Deletes {@code ids} by primary key, {@value #DELETE_CHUNK} at a time through one statement
   * rendered once (a shorter last chunk repeats its last id, which deletes nothing twice).
   */
  private int delete(Connection c, List<Long> ids) throws SQLException {
    int deleted = 0;
    try (PreparedStatement ps = c.prepareStatement(deleteIds.get())) {
      for (int from = 0; from < ids.size(); from += DELETE_CHUNK) {
        for (int k = 0; k < DELETE_CHUNK; k++) {
          ps.setLong(k + 1, ids.get(Math.min(from + k, ids.size() - 1)));
        }
        deleted += ps.executeUpdate();
      }
    }
    return deleted;
  }
}
