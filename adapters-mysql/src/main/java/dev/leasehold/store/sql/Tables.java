package dev.leasehold.store.sql;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.jooq.Binding;
import org.jooq.BindingSQLContext;
import org.jooq.Converter;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.conf.ParamType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;

/**
 * The store's tables as jOOQ sees them (no code generation; unquoted names so H2 finds its
 * upper-case identifiers), and the one time type all their time columns share.
 *
 * <p>Times are stored as {@code DATETIME(3)} / {@code TIMESTAMP(3)} without time zone, holding UTC.
 * The {@link #UTC} type moves them between {@link Instant} and the column through {@code
 * LocalDateTime} with JDBC 4.2 {@code setObject}/{@code getObject}, never through {@code
 * java.sql.Timestamp}: that class interprets the value in the JVM's default zone and silently moves
 * times that fall into that zone's daylight-saving gap by an hour.
 */
final class Tables {
  private Tables() {}

  private static final Converter<LocalDateTime, Instant> UTC_CONVERTER =
      Converter.ofNullable(
          LocalDateTime.class,
          Instant.class,
          local -> local.toInstant(ZoneOffset.UTC),
          instant ->
              LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC));

  private static final Binding<LocalDateTime, Instant> UTC_BINDING =
      Binding.of(
          UTC_CONVERTER,
          Tables::renderUtc,
          ctx -> {
            try {
              LocalDateTime local = ctx.resultSet().getObject(ctx.index(), LocalDateTime.class);
              ctx.value(UTC_CONVERTER.from(local));
            } catch (SQLException e) {
              throw new DataAccessException("reading a UTC time", e);
            }
          },
          ctx -> {
            try {
              ctx.statement().setObject(ctx.index(), UTC_CONVERTER.to(ctx.value()));
            } catch (SQLException e) {
              throw new DataAccessException("binding a UTC time", e);
            }
          });

  /**
   * A UTC instant, kept to the millisecond, in a {@code DATETIME(3)}/{@code TIMESTAMP(3)} column.
   */
  static final DataType<Instant> UTC =
      SQLDataType.LOCALDATETIME(3).asConvertedDataType(UTC_BINDING);

  private static void renderUtc(BindingSQLContext<Instant> ctx) {
    if (ctx.render().paramType() == ParamType.INLINED) {
      ctx.render().visit(DSL.inline(UTC_CONVERTER.to(ctx.value()), SQLDataType.LOCALDATETIME(3)));
    } else {
      ctx.render().sql(ctx.variable());
    }
  }

  /**
   * The database's clock, at millisecond precision, in UTC: every connection's session time zone is
   * UTC ({@link SqlDialect#utcSessionSql}).
   */
  static final Field<Instant> NOW = localNow().coerce(UTC);

  /** The database's clock plus {@code ttl}, computed by the database. */
  static Field<Instant> nowPlus(Duration ttl) {
    return localNow().plus(DSL.val(DayToSecond.valueOf(ttl))).coerce(UTC);
  }

  /**
   * jOOQ renders {@code currentLocalDateTime} as {@code current_timestamp(3)}, which is a {@code
   * timestamptz} on PostgreSQL; the cast makes it a plain timestamp (at the UTC session zone)
   * everywhere, so it compares with the columns without an implicit conversion.
   */
  private static Field<LocalDateTime> localNow() {
    return DSL.cast(DSL.currentLocalDateTime(DSL.inline(3)), SQLDataType.LOCALDATETIME(3));
  }

  /** One row per lease name. */
  static final Table<Record> LOCK = table(unquotedName("task_lock"));

  static final Field<String> LOCK_KEY = field(unquotedName("lock_key"), SQLDataType.VARCHAR(100));
  static final Field<String> HOLDER = field(unquotedName("holder"), SQLDataType.VARCHAR(200));
  static final Field<String> TOKEN = field(unquotedName("token"), SQLDataType.VARCHAR(64));
  static final Field<Long> FENCE = field(unquotedName("fence"), SQLDataType.BIGINT);
  static final Field<Instant> LAST_FIRE = field(unquotedName("last_fire"), UTC);
  static final Field<Instant> LEASE_UNTIL = field(unquotedName("lease_until"), UTC);
  static final Field<Instant> PAUSED_AT = field(unquotedName("paused_at"), UTC);
  static final Field<String> PAUSED_BY = field(unquotedName("paused_by"), SQLDataType.VARCHAR(200));
  static final Field<String> PAUSED_REASON =
      field(unquotedName("paused_reason"), SQLDataType.VARCHAR(500));
  static final Field<Integer> PAUSE_STOP = field(unquotedName("pause_stop"), SQLDataType.INTEGER);
  static final Field<Instant> PAUSED_FIRE = field(unquotedName("paused_fire"), UTC);

  /** One row per execution attempt. */
  static final Table<Record> EXECUTION = table(unquotedName("task_execution"));

  static final Field<Long> ID = field(unquotedName("id"), SQLDataType.BIGINT);
  static final Field<String> JOB = field(unquotedName("job"), SQLDataType.VARCHAR(100));
  static final Field<Instant> FIRE_TIME = field(unquotedName("fire_time"), UTC);
  static final Field<String> NODE = field(unquotedName("node"), SQLDataType.VARCHAR(200));
  static final Field<Long> RUN_FENCE = field(unquotedName("fence"), SQLDataType.BIGINT);
  static final Field<String> TRIGGER_KIND =
      field(unquotedName("trigger_kind"), SQLDataType.VARCHAR(16));
  static final Field<Instant> STARTED_AT = field(unquotedName("started_at"), UTC);
  static final Field<Instant> FINISHED_AT = field(unquotedName("finished_at"), UTC);
  static final Field<String> OUTCOME = field(unquotedName("outcome"), SQLDataType.VARCHAR(16));
  static final Field<Integer> EXIT_CODE = field(unquotedName("exit_code"), SQLDataType.INTEGER);
  static final Field<String> DETAIL = field(unquotedName("detail"), SQLDataType.VARCHAR(500));
  static final Field<String> OUTPUT = field(unquotedName("output"), SQLDataType.CLOB);
  static final Field<Integer> ATTEMPT = field(unquotedName("attempt"), SQLDataType.INTEGER);

  /** One row per daemon's node record. */
  static final Table<Record> NODE_TABLE = table(unquotedName("task_node"));

  static final Field<String> NODE_ID = field(unquotedName("node_id"), SQLDataType.VARCHAR(200));
  static final Field<String> VERSION = field(unquotedName("version"), SQLDataType.VARCHAR(100));
  static final Field<Instant> NODE_STARTED = field(unquotedName("started_at"), UTC);
  static final Field<Instant> LAST_SEEN = field(unquotedName("last_seen"), UTC);
  static final Field<Instant> EXPIRES_AT = field(unquotedName("expires_at"), UTC);
  static final Field<Instant> KEPT_UNTIL = field(unquotedName("kept_until"), UTC);
  static final Field<String> JOB_DIGEST =
      field(unquotedName("job_digest"), SQLDataType.VARCHAR(100));
  static final Field<String> NODE_LEASES = field(unquotedName("leases"), SQLDataType.CLOB);

  /** One row per journal entry (migration V7). */
  static final Table<Record> JOURNAL = table(unquotedName("task_journal"));

  static final Field<String> ENTRY_ID = field(unquotedName("id"), SQLDataType.VARCHAR(36));
  static final Field<String> STREAM = field(unquotedName("stream"), SQLDataType.VARCHAR(100));
  static final Field<Instant> ENTRY_AT = field(unquotedName("entry_at"), UTC);
  static final Field<String> BODY = field(unquotedName("body"), SQLDataType.CLOB);

  /** One row per write-once journal key (migration V7). */
  static final Table<Record> JOURNAL_KEY = table(unquotedName("task_journal_key"));

  static final Field<String> JOURNAL_KEY_NAME =
      field(unquotedName("journal_key"), SQLDataType.VARCHAR(100));
  static final Field<String> KEY_VALUE = field(unquotedName("key_value"), SQLDataType.CLOB);
}
