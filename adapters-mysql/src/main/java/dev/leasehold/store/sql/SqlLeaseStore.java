package dev.leasehold.store.sql;

import static dev.leasehold.store.sql.Tables.FENCE;
import static dev.leasehold.store.sql.Tables.HOLDER;
import static dev.leasehold.store.sql.Tables.LAST_FIRE;
import static dev.leasehold.store.sql.Tables.LEASE_UNTIL;
import static dev.leasehold.store.sql.Tables.LOCK;
import static dev.leasehold.store.sql.Tables.LOCK_KEY;
import static dev.leasehold.store.sql.Tables.NOW;
import static dev.leasehold.store.sql.Tables.TOKEN;

import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.SelectJoinStep;
import org.jooq.UpdateSetMoreStep;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaseStore} on one SQL table, {@code task_lock}, through jOOQ: the same code on H2,
 * MariaDB/MySQL and PostgreSQL. Every time that decides expiry is the database's clock ({@code
 * current_timestamp(3)} in a UTC session), never this JVM's.
 *
 * <p>Why it is safe: each decision is <b>one conditional single-row UPDATE</b> in autocommit. The
 * database locks the row for the UPDATE and evaluates the WHERE clause on the latest committed
 * version (InnoDB's locking read; PostgreSQL's re-check after a concurrent update at READ
 * COMMITTED; H2's row lock), so of two racing claims the second sees the first's new {@code
 * lease_until} and changes nothing. A name's first claim INSERTs the row; the primary key lets
 * exactly one racing INSERT in, the others get a duplicate-key error, which means "lost".
 */
public final class SqlLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(SqlLeaseStore.class);

  private final DSLContext db;
  private final AutoCloseable resources;

  /**
   * @param dataSource connections in autocommit whose session time zone is UTC (as the store's
   *     factory configures them)
   * @param resources closed by {@link #close()}, e.g. the pool this store alone uses
   */
  public SqlLeaseStore(DataSource dataSource, SQLDialect dialect, AutoCloseable resources) {
    this.db = SqlSupport.dsl(dataSource, dialect);
    this.resources = resources;
  }

  /**
   * {@code UPDATE task_lock SET holder, token, fence = fence + 1, last_fire = :firing, lease_until
   * = now + ttl WHERE lock_key = :name AND lease_until <= now AND (last_fire IS NULL OR last_fire <
   * :firing)}; when that changes no row and the row does not exist, an INSERT.
   */
  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return take(name, LeaseArguments.firing(firing), holder, ttl);
  }

  /** As {@link #claim}, without the watermark condition and without moving the watermark. */
  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    LeaseArguments.ttlMillis(ttl);
    return take(name, null, holder, ttl);
  }

  private Optional<Lease> take(String name, Instant firing, String holder, Duration ttl) {
    String token = LeaseArguments.newToken();
    Field<Instant> until = Tables.nowPlus(ttl);
    Condition free = LOCK_KEY.eq(name).and(LEASE_UNTIL.le(NOW));
    UpdateSetMoreStep<Record> update =
        db.update(LOCK)
            .set(HOLDER, holder)
            .set(TOKEN, token)
            .set(FENCE, FENCE.plus(DSL.inline(1L)))
            .set(LEASE_UNTIL, until);
    if (firing != null) {
      update = update.set(LAST_FIRE, firing);
      free = free.and(LAST_FIRE.isNull().or(LAST_FIRE.lt(firing)));
    }
    try {
      if (update.where(free).execute() == 0) {
        if (db.fetchExists(LOCK, LOCK_KEY.eq(name))
            || !insert(name, firing, holder, token, until)) {
          log.debug("lease {} is held or its firing {} was already claimed", name, firing);
          return Optional.empty();
        }
      }
      return Optional.of(readBack(name, holder, token, ttl));
    } catch (DataAccessException e) {
      throw SqlSupport.failure((firing == null ? "acquire of " : "claim of ") + name, e);
    }
  }

  /** The first lease of a name; {@code false} when a racing client inserted it first. */
  private boolean insert(
      String name, Instant firing, String holder, String token, Field<Instant> until) {
    try {
      db.insertInto(LOCK)
          .set(LOCK_KEY, name)
          .set(HOLDER, holder)
          .set(TOKEN, token)
          .set(FENCE, 1L)
          .set(LAST_FIRE, firing)
          .set(LEASE_UNTIL, until)
          .execute();
      return true;
    } catch (DataAccessException e) {
      if (SqlSupport.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Reads the fence and expiry the database gave this claim (MariaDB has no UPDATE ... RETURNING,
   * so every database takes this one path). The token identifies our row version.
   */
  private Lease readBack(String name, String holder, String token, Duration ttl) {
    Record row =
        db.select(FENCE, LEASE_UNTIL)
            .from(LOCK)
            .where(LOCK_KEY.eq(name).and(TOKEN.eq(token)))
            .fetchOne();
    if (row == null) {
      throw new LeaseStoreException(
          "SQL store: lease " + name + " expired before it could be read back; ttl too short?");
    }
    return new Lease(name, holder, token, row.get(FENCE), ttl, row.get(LEASE_UNTIL));
  }

  /**
   * {@code UPDATE task_lock SET lease_until = now + ttl WHERE lock_key = :name AND token = :token
   * AND lease_until > now}: an expired lease may belong to someone else already, so it is not
   * revived.
   */
  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    LeaseArguments.ttlMillis(ttl);
    try {
      boolean renewed =
          db.update(LOCK)
                  .set(LEASE_UNTIL, Tables.nowPlus(ttl))
                  .where(LOCK_KEY.eq(lease.name()))
                  .and(TOKEN.eq(lease.token()))
                  .and(LEASE_UNTIL.gt(NOW))
                  .execute()
              == 1;
      if (!renewed) {
        log.warn("renewal of {} refused: the lease expired or another holder has it", lease);
      }
      return renewed;
    } catch (DataAccessException e) {
      throw SqlSupport.failure("renewal of " + lease.name(), e);
    }
  }

  /**
   * {@code UPDATE task_lock SET holder = NULL, token = NULL, lease_until = now WHERE lock_key =
   * :name AND token = :token}: fence and watermark stay.
   */
  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    try {
      return db.update(LOCK)
              .set(HOLDER, (String) null)
              .set(TOKEN, (String) null)
              .set(LEASE_UNTIL, NOW)
              .where(LOCK_KEY.eq(lease.name()))
              .and(TOKEN.eq(lease.token()))
              .execute()
          == 1;
    } catch (DataAccessException e) {
      throw SqlSupport.failure("release of " + lease.name(), e);
    }
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    try {
      return selectState().where(LOCK_KEY.eq(name)).fetchOptional(SqlLeaseStore::state);
    } catch (DataAccessException e) {
      throw SqlSupport.failure("inspect of " + name, e);
    }
  }

  @Override
  public List<LeaseState> list() {
    try {
      // sorted here: the database's collation need not order names the way Java does
      return selectState().fetch(SqlLeaseStore::state).stream()
          .sorted(Comparator.comparing(LeaseState::name))
          .toList();
    } catch (DataAccessException e) {
      throw SqlSupport.failure("list", e);
    }
  }

  private static final Field<Boolean> HELD = DSL.field(LEASE_UNTIL.gt(NOW)).as("held");

  /** {@code held} is decided by the database's clock in the same statement. */
  private SelectJoinStep<? extends Record> selectState() {
    return db.select(LOCK_KEY, HOLDER, LEASE_UNTIL, LAST_FIRE, FENCE, HELD).from(LOCK);
  }

  private static LeaseState state(Record r) {
    return new LeaseState(
        r.get(LOCK_KEY),
        r.get(HOLDER),
        r.get(LEASE_UNTIL),
        r.get(LAST_FIRE),
        r.get(FENCE),
        Boolean.TRUE.equals(r.get(HELD)));
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
