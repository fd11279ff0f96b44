package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.RequestSignals;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL's {@code LISTEN/NOTIFY} as the store's request signals: {@code pg_notify} on the
 * channel {@link #CHANNEL} after a request's marker was bumped; each listener holds one connection
 * of the pool on a thread of its own, blocked in the driver until a notification arrives (no
 * statement while it waits), and starts again on a new connection after a failure. Notifications
 * are per database: a request of another namespace in the same database only wakes a daemon for one
 * read.
 */
final class PostgresSignals implements RequestSignals {
  private static final Logger log = LoggerFactory.getLogger(PostgresSignals.class);

  static final String CHANNEL = "leasehold_requests";
  private static final String NOTIFY = "SELECT pg_notify('" + CHANNEL + "', '')";
  private static final String LISTEN = "LISTEN " + CHANNEL;
  private static final int WAIT_MILLIS = 1000;
  private static final long RETRY_MILLIS = 1000;

  private final HikariDataSource pool;

  PostgresSignals(HikariDataSource pool) {
    this.pool = pool;
  }

  @Override
  public void signal() {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(NOTIFY);
    } catch (SQLException e) {
      throw SqlSupport.failure("request signal", e);
    }
  }

  @Override
  public AutoCloseable listen(Runnable wake) {
    AtomicBoolean closed = new AtomicBoolean();
    Thread listener = new Thread(() -> listen(wake, closed), "leasehold-request-signals");
    listener.setDaemon(true);
    listener.start();
    return () -> {
      closed.set(true);
      listener.interrupt();
    };
  }

  private void listen(Runnable wake, AtomicBoolean closed) {
    boolean failing = false;
    while (!closed.get() && !pool.isClosed()) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute(LISTEN);
        PGConnection pg = c.unwrap(PGConnection.class);
        if (failing) {
          log.info("listening to the request signals again");
          failing = false;
        }
        wake.run(); // a signal may have come before this listener (again)
        while (!closed.get()) {
          PGNotification[] got = pg.getNotifications(WAIT_MILLIS);
          if (got != null && got.length > 0) {
            wake.run();
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (closed.get() || pool.isClosed()) {
          return;
        }
        if (!failing) {
          log.warn("request signals not heard ({}); listening again", e.toString());
        }
        failing = true;
        try {
          Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }
}
