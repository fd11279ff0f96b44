package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.FENCE;
import static dev.leasehold.store.sql.Tables.HOLDER;
import static dev.leasehold.store.sql.Tables.LAST_FIRE;
import static dev.leasehold.store.sql.Tables.LEASE_UNTIL;
import static dev.leasehold.store.sql.Tables.LOCK;
import static dev.leasehold.store.sql.Tables.LOCK_KEY;
import static dev.leasehold.store.sql.Tables.NOW;
import static dev.leasehold.store.sql.Tables.PAUSED_AT;
import static dev.leasehold.store.sql.Tables.PAUSED_BY;
import static dev.leasehold.store.sql.Tables.PAUSED_FIRE;
import static dev.leasehold.store.sql.Tables.PAUSED_REASON;
import static dev.leasehold.store.sql.Tables.PAUSE_STOP;

import dev.leasehold.core.lease.ClaimRequest;
import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Record;
import org.jooq.UpdateSetMoreStep;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on one SQL table, {@code task_lock}, on H2, MariaDB/MySQL and PostgreSQL.
 * Every time that decides expiry is the database's clock ({@code current_timestamp(3)} in a UTC
 * session), never this JVM's.
 *
 * <p>Why it is safe: every claim, batch of claims, renewal and release is <b>one statement</b> in
 * autocommit ({@link SqlDialect}): an upsert whose update branch is guarded by "the lease is free
 * and the firing is newer than the watermark". The database locks the row and evaluates that guard
 * on its latest committed version, so of two racing claims the second sees the first's new {@code
 * lease_until} and changes nothing; a name's first claim inserts the row, and the primary key lets
 * exactly one of several racing inserts in. The same answer says why a claim was refused.
 *
 * <p>The answers are checked, not only received ({@link ClaimAnswers}): the row a claim won must
 * carry its own token, a fence above any this client saw for the name, and on a name's first claim
 * the table must hold exactly one row for it. A mismatch is a {@link LeaseStoreException} that
 * names what the server did wrong: the claim fails closed.
 *
 * <p>Every statement is plain JDBC: the hot path (claim, renew, release) on the dialect's own SQL,
 * the rest on text jOOQ renders at its first use ({@link Rendered}).
 */
public final class SqlLeaseStore implements LeaseStore, Pauses, NodeRecords, Forgetting {
  private static final Logger log = LoggerFactory.getLogger(SqlLeaseStore.class);

  private final DataSource dataSource;
  private final DSLContext db;
  private final SqlDialect sql;
  private final ClaimAnswers answers;
  private final AutoCloseable resources;
  private final Rendered inspectOne;
  private final Rendered listAll;
  private final SqlNodes nodes;
  private final SqlForget forgetting;
  private final Rendered pauseRow;
  private final Rendered pauseNewRow;
  private final Rendered pauseOfRow;
  private final Rendered resumeUnfired;
  private final Rendered resumeFired;

  /**
   * @param dataSource connections in autocommit whose session time zone is UTC (as the store's
   *     factory configures them)
   * @param resources closed by {@link #close()}, e.g. the pool this store alone uses
   */
  SqlLeaseStore(DataSource dataSource, SqlDialect dialect, AutoCloseable resources) {
    this.dataSource = dataSource;
    this.db = SqlSupport.dsl(dataSource, dialect.jooq);
    this.sql = dialect;
    this.answers = new ClaimAnswers(sql);
    this.resources = resources;
    this.inspectOne = Rendered.by(() -> selectState(LOCK_KEY.eq(DSL.param("name", String.class))));
    this.listAll = Rendered.by(() -> selectState(LOCK_KEY.ne(DSL.param("floor", String.class))));
    this.nodes = new SqlNodes(db, dataSource);
    this.forgetting = new SqlForget(db);
    Param<String> key = DSL.param(LOCK_KEY);
    Param<String> by = DSL.param(PAUSED_BY);
    Param<String> reason = DSL.param(PAUSED_REASON);
    Param<Integer> stop = DSL.param(PAUSE_STOP);
    this.pauseRow =
        Rendered.by(
            () ->
                db.update(LOCK)
                    .set(PAUSED_AT, DSL.coalesce(PAUSED_AT, NOW))
                    .set(PAUSED_BY, by)
                    .set(PAUSED_REASON, reason)
                    .set(PAUSE_STOP, stop)
                    .where(LOCK_KEY.eq(key))
                    .getSQL(ParamType.INDEXED));
    this.pauseNewRow =
        Rendered.by(
            () ->
                db.insertInto(LOCK)
                    .set(LOCK_KEY, key)
                    .set(FENCE, DSL.inline(0L))
                    .set(LEASE_UNTIL, NOW)
                    .set(PAUSED_AT, NOW)
                    .set(PAUSED_BY, by)
                    .set(PAUSED_REASON, reason)
                    .set(PAUSE_STOP, stop)
                    .getSQL(ParamType.INDEXED));
    this.pauseOfRow =
        Rendered.by(
            () ->
                db.select(PAUSED_AT, LAST_FIRE, PAUSED_FIRE)
                    .from(LOCK)
                    .where(LOCK_KEY.eq(key))
                    .getSQL(ParamType.INDEXED));
    Condition paused = LOCK_KEY.eq(key).and(PAUSED_AT.isNotNull());
    this.resumeUnfired =
        Rendered.by(
            () -> unpause(db).where(paused.and(LAST_FIRE.isNull())).getSQL(ParamType.INDEXED));
    this.resumeFired =
        Rendered.by(
            () ->
                unpause(db)
                    .set(LAST_FIRE, DSL.param(LAST_FIRE))
                    .where(paused.and(LAST_FIRE.eq(DSL.param(LAST_FIRE))))
                    .getSQL(ParamType.INDEXED));
  }

  /** One statement decides won, held or already run (see {@link SqlDialect}). */
  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    return single(name, LeaseArguments.firing(firing), holder, ttlMillis, "claim of ");
  }

  /** As {@link #claim}, without the watermark condition and without moving the watermark. */
  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    return single(name, null, holder, ttlMillis, "acquire of ").leaseIfWon();
  }

  private ClaimResult single(
      String name, Instant firing, String holder, long ttlMillis, String what) {
    ClaimAttempt attempt =
        new ClaimAttempt(name, firing, holder, LeaseArguments.newToken(), ttlMillis);
    ClaimResult result = run(List.of(attempt), what + name).get(0);
    if (result.kind() == ClaimResult.Kind.FAILED) {
      throw result.failure();
    }
    if (!result.won()) {
      log.debug("lease {} not taken for firing {}: {}", name, firing, result);
    }
    return result;
  }

  /**
   * One statement per {@link ClaimSql.MAX_BATCH} claims; per-claim semantics those of {@link
   * #tryClaim}. A statement that fails fails the claims it carried, and only those.
   */
  @Override
  public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
    LeaseArguments.batch(requests);
    List<ClaimAttempt> attempts = new ArrayList<>(requests.size());
    for (ClaimRequest r : requests) {
      attempts.add(
          new ClaimAttempt(
              r.name(),
              LeaseArguments.firing(r.firing()),
              r.holder(),
              LeaseArguments.newToken(),
              r.ttl().toMillis()));
    }
    List<ClaimResult> results = new ArrayList<>(requests.size());
    for (int from = 0; from < attempts.size(); from += ClaimSql.MAX_BATCH) {
      List<ClaimAttempt> chunk =
          attempts.subList(from, Math.min(attempts.size(), from + ClaimSql.MAX_BATCH));
      results.addAll(run(chunk, "batch claim of " + chunk.size() + " names"));
    }
    return results;
  }

  /** The answers to {@code attempts}, in their order; a store error fails every one of them. */
  private List<ClaimResult> run(List<ClaimAttempt> attempts, String what) {
    List<ClaimAttempt> sorted = new ArrayList<>(attempts);
    sorted.sort(Comparator.comparing(ClaimAttempt::name));
    try (Connection c = dataSource.getConnection()) {
      return answers.decide(c, attempts, claimRetryingOnce(c, sorted));
    } catch (SQLException e) {
      return failAll(attempts, SqlSupport.failure(what, e));
    } catch (LeaseStoreException e) {
      return failAll(attempts, e);
    }
  }

  /**
   * The claim statement; run a second time when the database aborted it for a race it does not
   * resolve itself (two first inserts of a name on H2, a deadlock between two batches): the failed
   * statement changed nothing, and the second run finds the racing client's row.
   */
  private List<ClaimRow> claimRetryingOnce(Connection c, List<ClaimAttempt> sorted)
      throws SQLException {
    try {
      return sql.claim(c, sorted);
    } catch (SQLException e) {
      if (!SqlSupport.isRace(e)) {
        throw e;
      }
      log.debug("claim statement lost a race, running it again: {}", e.getMessage());
      return sql.claim(c, sorted);
    }
  }

  private static List<ClaimResult> failAll(List<ClaimAttempt> attempts, LeaseStoreException e) {
    return attempts.stream().map(a -> ClaimResult.failed(e)).toList();
  }

  /**
   * {@code UPDATE task_lock SET lease_until = now + ttl WHERE lock_key = :name AND token = :token
   * AND lease_until > now}: an expired lease may belong to someone else already, so it is not
   * revived.
   */
  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    boolean renewed = update(sql.renew, "renewal of ", lease, ttlMillis);
    if (!renewed) {
      log.warn("renewal of {} refused: the lease expired or another holder has it", lease);
    }
    return renewed;
  }

  /**
   * {@code UPDATE task_lock SET holder = NULL, token = NULL, lease_until = now WHERE lock_key =
   * :name AND token = :token}: fence and watermark stay.
   */
  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    return update(sql.release, "release of ", lease, -1);
  }

  /** Runs a renewal or release; more than one changed row means the table lost its primary key. */
  private boolean update(String statement, String what, Lease lease, long ttlMillis) {
    int changed;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(statement)) {
      int i = 1;
      if (ttlMillis > 0) {
        ps.setLong(i++, ttlMillis);
      }
      ps.setString(i++, lease.name());
      ps.setString(i, lease.token());
      changed = ps.executeUpdate();
    } catch (SQLException e) {
      throw SqlSupport.failure(what + lease.name(), e);
    }
    if (changed > 1) {
      throw new LeaseStoreException(
          "SQL store: "
              + what
              + lease.name()
              + ": the server changed "
              + changed
              + " rows for one lease name: task_lock has no primary key on lock_key");
    }
    return changed == 1;
  }

  /** The columns a resume clears; then the watermark, and the guard. */
  private static UpdateSetMoreStep<Record> unpause(DSLContext db) {
    return db.update(LOCK)
        .set(PAUSED_AT, DSL.castNull(PAUSED_AT))
        .set(PAUSED_BY, DSL.castNull(PAUSED_BY))
        .set(PAUSED_REASON, DSL.castNull(PAUSED_REASON))
        .set(PAUSE_STOP, DSL.inline(0));
  }

  /**
   * One conditional {@code UPDATE} of the name's row (the first pause keeps its {@code paused_at});
   * a name without a row gets one, free and never claimed, by an {@code INSERT} (a racing insert of
   * the same name loses on the primary key, and the update runs again). From then on every claim
   * statement sees the pause on the row it locks: see {@link SqlDialect}.
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    try {
      markPaused(name, by, reason, stopRunning);
    } catch (SQLException e) {
      throw SqlSupport.failure("pause of " + name, e);
    }
    // read on its own connection, after the pause's went back to the pool
    return inspect(name)
        .map(LeaseState::pause)
        .orElseThrow(() -> new LeaseStoreException("SQL store: pause of " + name + " lost"));
  }

  private void markPaused(String name, String by, String reason, boolean stopRunning)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      for (int attempt = 1; ; attempt++) {
        try (PreparedStatement ps = c.prepareStatement(pauseRow.get())) {
          ps.setString(1, by);
          ps.setString(2, reason);
          ps.setInt(3, stopRunning ? 1 : 0);
          ps.setString(4, name);
          if (ps.executeUpdate() > 0) {
            return;
          }
        }
        try (PreparedStatement ps = c.prepareStatement(pauseNewRow.get())) {
          ps.setString(1, name);
          ps.setString(2, by);
          ps.setString(3, reason);
          ps.setInt(4, stopRunning ? 1 : 0);
          ps.executeUpdate();
          return;
        } catch (SQLException e) {
          if (attempt >= 3 || !SqlSupport.isRace(e)) {
            throw e;
          }
          // another client made the row first: pause it by the update
        }
      }
    }
  }

  /**
   * One conditional {@code UPDATE} that ends the pause; with catch-up it also lowers the watermark
   * by a millisecond, guarded by the watermark it read (still the firing a claim recorded as
   * paused), so a claim that moved the watermark in between makes it read again instead.
   */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    try (Connection c = dataSource.getConnection()) {
      while (true) {
        Instant pausedAt;
        Instant last;
        Instant pausedFire;
        try (PreparedStatement ps = c.prepareStatement(pauseOfRow.get())) {
          ps.setString(1, name);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              return false;
            }
            pausedAt = SqlSupport.instant(rs, 1);
            last = SqlSupport.instant(rs, 2);
            pausedFire = SqlSupport.instant(rs, 3);
          }
        }
        if (pausedAt == null) {
          return false;
        }
        boolean rollBack = catchUp && last != null && last.equals(pausedFire);
        try (PreparedStatement ps =
            c.prepareStatement((last == null ? resumeUnfired : resumeFired).get())) {
          if (last == null) {
            ps.setString(1, name);
          } else {
            ps.setObject(1, SqlSupport.utc(rollBack ? last.minusMillis(1) : last));
            ps.setString(2, name);
            ps.setObject(3, SqlSupport.utc(last));
          }
          if (ps.executeUpdate() == 1) {
            return true;
          }
        }
      }
    } catch (SQLException e) {
      throw SqlSupport.failure("resume of " + name, e);
    }
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    try {
      List<LeaseState> states = states(inspectOne, name);
      return states.isEmpty() ? Optional.empty() : Optional.of(states.get(0));
    } catch (SQLException e) {
      throw SqlSupport.failure("inspect of " + name, e);
    }
  }

  /** The database's {@code current_timestamp} (UTC session), the clock of {@code lease_until}. */
  @Override
  public Optional<Instant> storeTime() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql.storeTime)) {
      return SqlSupport.rows(ps, rs -> SqlSupport.instant(rs, 1)).stream().findFirst();
    } catch (SQLException e) {
      throw SqlSupport.failure("read of the database's time", e);
    }
  }

  /** {@link SqlForget}: deleted only while free and unpaused, the fence kept as a floor. */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    try {
      return forgetting.forget(dataSource, name);
    } catch (SQLException e) {
      throw SqlSupport.failure("forget of " + name, e);
    }
  }

  /** A row of {@code task_node} ({@link SqlNodes}). */
  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord node, Duration ttl) {
    nodes.publish(node, ttl);
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    return nodes.read();
  }

  @Override
  public List<LeaseState> list() {
    try {
      // sorted here: the database's collation need not order names the way Java does
      return states(listAll, SqlForget.FLOOR).stream()
          .sorted(Comparator.comparing(LeaseState::name))
          .toList();
    } catch (SQLException e) {
      throw SqlSupport.failure("list", e);
    }
  }

  private static final Field<Boolean> HELD = DSL.field(LEASE_UNTIL.gt(NOW)).as("held");

  /**
   * The lease states' SELECT with {@code condition}, rendered once by jOOQ for the dialect and run
   * through JDBC ({@link #states}): {@code list} runs every few seconds on every daemon (its node
   * record says what it holds), where building and rendering the query each time cost more CPU than
   * the database's answer. {@code held} is decided by the database's clock in the same statement.
   */
  private String selectState(Condition condition) {
    return db.select(
            LOCK_KEY,
            HOLDER,
            LEASE_UNTIL,
            LAST_FIRE,
            FENCE,
            HELD,
            PAUSED_AT,
            PAUSED_BY,
            PAUSED_REASON,
            PAUSE_STOP)
        .from(LOCK)
        .where(condition)
        .getSQL(ParamType.INDEXED);
  }

  /** The rows of {@code statement} (one of {@link #selectState}'s) for its one argument. */
  private List<LeaseState> states(Rendered statement, String name) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(statement.get())) {
      ps.setString(1, name);
      return SqlSupport.rows(ps, SqlLeaseStore::state);
    }
  }

  /** A row of {@link #selectState}, its columns in the order selected. */
  private static LeaseState state(ResultSet rs) throws SQLException {
    String name = rs.getString(1);
    String holder = rs.getString(2);
    Instant leaseUntil = SqlSupport.instant(rs, 3);
    Instant lastFire = SqlSupport.instant(rs, 4);
    long fence = rs.getLong(5);
    boolean held = rs.getBoolean(6);
    Instant pausedAt = SqlSupport.instant(rs, 7);
    String pausedBy = rs.getString(8);
    String pausedReason = rs.getString(9);
    boolean pauseStop = rs.getInt(10) == 1;
    return new LeaseState(
        name,
        holder,
        leaseUntil,
        lastFire,
        fence,
        held,
        pausedAt == null ? null : new Pause(pausedAt, pausedBy, pausedReason, pauseStop));
  }

  @Override
  public void close() {
    try {
      resources.close();
    } catch (Exception e) {
      log.warn("closing the SQL store's connections failed: {}", e.toString());
    }
  }
}
