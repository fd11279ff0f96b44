package dev.leasehold.store.sql;

import com.zaxxer.hikari.util.DriverDataSource;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.ConnectFailures;
import dev.leasehold.core.store.Redaction;
import dev.leasehold.core.store.StoreSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Connections made straight through the driver, outside any pool: the store's first connection (so
 * a refused connection is reported at once, with the driver's own reason, instead of after the
 * pool's wait) and the migration's. A failed connection becomes one plain line: which database,
 * which host and port (or H2 file), and why.
 */
final class SqlConnections {
  private static final Duration LOCK_RETRY = Duration.ofMillis(200);

  private static final Pattern NETWORK_URL =
      Pattern.compile(
          // user info up to the last '@' before the path: a password may hold '@' and ':'
          "^jdbc:[a-z0-9]+:(?:[a-z]+:)?//(?:[^/]*@)?([^/?;,@]+)", Pattern.CASE_INSENSITIVE);

  private SqlConnections() {}

  /** A data source that opens a new driver connection on each call, with the given timeouts. */
  static DataSource direct(
      SqlDialect dialect, String url, StoreSettings settings, Duration connect, Duration read) {
    return new DriverDataSource(
        url,
        dialect.driverClass,
        dialect.timeoutProperties(connect, read),
        settings.username(),
        settings.password());
  }

  /**
   * Opens one connection through {@code source}. For an H2 file that another process holds (or just
   * released, while H2 lets its stale lock age), tries again until {@code lockWait} has passed; any
   * other failure is reported at once.
   *
   * @throws StoreUnreachableException naming the database, where it is and why it failed
   */
  static Connection open(
      SqlDialect dialect,
      String url,
      StoreSettings settings,
      DataSource source,
      Duration connectTimeout,
      Duration lockWait) {
    long deadline = System.nanoTime() + lockWait.toNanos();
    while (true) {
      try {
        return source.getConnection();
      } catch (SQLException e) {
        if (!dialect.locked(e) || System.nanoTime() > deadline) {
          throw unreachable(dialect, url, settings, e, connectTimeout, lockWait);
        }
      }
      try {
        Thread.sleep(LOCK_RETRY.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException(
            "SQL store: interrupted while opening " + where(dialect, url));
      }
    }
  }

  /** The one-line failure for a connection that could not be made. */
  static StoreUnreachableException unreachable(
      SqlDialect dialect,
      String url,
      StoreSettings settings,
      SQLException e,
      Duration connectTimeout,
      Duration lockWait) {
    String reason = reason(dialect, e, connectTimeout, lockWait);
    if (quotesUserInfo(url, reason)) {
      // a driver that split the user info at '@' or ':' quotes pieces of the password
      reason =
          "the driver could not read the URL: write '@' as %40 and ':' as %3A in its user info,"
              + " or give the password as store.password";
    }
    String what =
        dialect.localPath(url) != null
            ? "cannot open " + dialect.displayName() + " file " + where(dialect, url)
            : "cannot connect to " + dialect.displayName() + " at " + where(dialect, url);
    String line = "SQL store: " + what + ": " + reason;
    String password = settings.password();
    if (password != null && !password.isEmpty()) {
      line = line.replace(password, "***");
    }
    return new StoreUnreachableException(Redaction.scrub(line), e);
  }

  private static final Pattern USER_INFO = Pattern.compile("//([^/]*)@");

  /**
   * Whether {@code text} holds a piece (2+ characters between '@' and ':', standing as a word of
   * its own) of the password in the URL's user info.
   */
  static boolean quotesUserInfo(String url, String text) {
    Matcher m = USER_INFO.matcher(url);
    if (!m.find() || m.group(1).indexOf(':') < 0) {
      return false;
    }
    String password = m.group(1).substring(m.group(1).indexOf(':') + 1);
    for (String piece : password.split("[@:]")) {
      if (piece.length() >= 2
          && Pattern.compile("(?<![\\p{L}\\p{N}])" + Pattern.quote(piece) + "(?![\\p{L}\\p{N}])")
              .matcher(text)
              .find()) {
        return true;
      }
    }
    return false;
  }

  private static String reason(
      SqlDialect dialect, SQLException e, Duration connectTimeout, Duration lockWait) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState() == null ? "" : s.getSQLState();
        if (state.startsWith("28") || s.getErrorCode() == 1045 || s.getErrorCode() == 28000) {
          return "authentication failed";
        }
        if (state.equals("3D000") || s.getErrorCode() == 1049) {
          return "database does not exist";
        }
        if (dialect.locked(s)) {
          return "database file locked by another process (waited "
              + Durations.format(lockWait)
              + ")";
        }
      }
    }
    String plain = ConnectFailures.reason(e, connectTimeout);
    if (plain != null) {
      return plain;
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.lines().findFirst().orElse("").strip();
  }

  /**
   * Where the database is: {@code host:port} of a network URL (the driver's default port when the
   * URL names none), the absolute path of an H2 file, or the URL without its secrets.
   */
  static String where(SqlDialect dialect, String url) {
    String file = dialect.localPath(url);
    if (file != null) {
      return file;
    }
    Matcher m = NETWORK_URL.matcher(url);
    if (!m.find()) {
      return Redaction.redactUrl(url.split(";", 2)[0]);
    }
    String hosts = m.group(1);
    int defaultPort = dialect.defaultPort();
    StringBuilder out = new StringBuilder();
    // MariaDB and PostgreSQL take several comma-separated hosts; the pattern stops at the first
    for (String host : hosts.split(",")) {
      out.append(out.length() == 0 ? "" : ",").append(withPort(host.strip(), defaultPort));
    }
    return out.toString().toLowerCase(Locale.ROOT);
  }

  private static String withPort(String host, int defaultPort) {
    if (host.startsWith("[")) {
      return host.contains("]:") ? host : host + ":" + defaultPort;
    }
    return host.contains(":") ? host : host + ":" + defaultPort;
  }
}
