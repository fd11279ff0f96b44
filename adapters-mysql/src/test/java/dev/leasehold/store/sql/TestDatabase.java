package dev.leasehold.store.sql;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * A fresh database for one test class on a real server, isolated from everyone else's: a MariaDB
 * database {@code lh_<random>}, a PostgreSQL schema {@code lh_<random>}, or an H2 file in a
 * temporary directory. Created migrated; {@link #close()} drops it.
 */
final class TestDatabase implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final String HOW_TO_START = "start it with: bash .ci/services.sh";

  final String type;
  final SqlDialect vendor;
  private final String url;
  private final String username;
  private final Runnable drop;

  private TestDatabase(String type, String url, String username, Runnable drop) {
    this.type = type;
    this.vendor = SqlDialect.forType(type);
    this.url = url;
    this.username = username;
    this.drop = drop;
  }

  static TestDatabase h2() {
    try {
      Path dir = Files.createTempDirectory("leasehold-h2-");
      return new TestDatabase("h2", "jdbc:h2:file:" + dir.resolve("lh"), null, () -> delete(dir));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static TestDatabase mariaDb() {
    ServerAvailability.require("MariaDB on 127.0.0.1:3306", "127.0.0.1", 3306, HOW_TO_START);
    String name = randomName();
    String admin = "jdbc:mariadb://127.0.0.1:3306/test";
    admin(admin, "root", SqlDialect.MARIADB, db -> db.createDatabase(name).execute());
    return new TestDatabase(
        "mariadb",
        "jdbc:mariadb://127.0.0.1:3306/" + name,
        "root",
        () ->
            admin(
                admin, "root", SqlDialect.MARIADB, db -> db.dropDatabaseIfExists(name).execute()));
  }

  /** A MariaDB database used as {@code type: mysql} through a {@code jdbc:mysql:} URL. */
  static TestDatabase mysqlOnMariaDb() {
    TestDatabase maria = mariaDb();
    return new TestDatabase(
        "mysql", maria.url.replace("jdbc:mariadb:", "jdbc:mysql:"), "root", maria.drop);
  }

  static TestDatabase postgres() {
    ServerAvailability.require("PostgreSQL on 127.0.0.1:5432", "127.0.0.1", 5432, HOW_TO_START);
    String name = randomName();
    String admin = "jdbc:postgresql://127.0.0.1:5432/test";
    admin(admin, "postgres", SqlDialect.POSTGRES, db -> db.createSchema(name).execute());
    return new TestDatabase(
        "postgres",
        admin + "?currentSchema=" + name,
        "postgres",
        () ->
            admin(
                admin,
                "postgres",
                SqlDialect.POSTGRES,
                db -> db.dropSchemaIfExists(name).cascade().execute()));
  }

  /** {@link #open()}ed once, so the tables exist. */
  TestDatabase migrated() {
    open().close();
    return this;
  }

  String url() {
    return url;
  }

  /** The URL with the session time zone set to something other than UTC where the URL can. */
  String urlWithSessionTimeZone() {
    return switch (vendor.type) {
      case "mariadb", "mysql" -> url + "?sessionVariables=time_zone='+05:45'";
      case "postgres" -> url + "&options=-c%20TimeZone%3DAsia/Kathmandu";
      default -> url; // an embedded H2 session takes the JVM's default zone
    };
  }

  StoreSettings settings() {
    return settings(url, TIMEOUT);
  }

  StoreSettings settings(String url, Duration timeout) {
    return new StoreSettings(type, url, List.of(), username, null, null, timeout, Map.of());
  }

  StoreBackend open() {
    return new SqlStoreFactory().open(settings());
  }

  /** A new, independent client with its own pool (no migration), with every part of the store. */
  StoreBackend newBackend() {
    StoreSettings settings = settings();
    return new SqlStoreBackend(
        SqlStoreFactory.pool(vendor, settings, settings.commandTimeout(), 5, "t"), vendor);
  }

  /** A new, independent client with its own pool (no migration). */
  LeaseStore newLeaseStore() {
    return leaseStore(settings());
  }

  LeaseStore leaseStore(StoreSettings settings) {
    HikariDataSource pool =
        SqlStoreFactory.pool(vendor, settings, settings.commandTimeout(), 5, "t");
    return new SqlLeaseStore(pool, vendor, pool);
  }

  /** Runs plain SQL statements on a connection configured as the store's are. */
  void execute(String... statements) {
    withDsl(
        db -> {
          for (String statement : statements) {
            db.execute(statement);
          }
        });
  }

  /** Runs {@code work} on a pooled connection configured as the store's are. */
  void withDsl(Consumer<DSLContext> work) {
    try (HikariDataSource pool = SqlStoreFactory.pool(vendor, settings(), TIMEOUT, 1, "t")) {
      work.accept(SqlSupport.dsl(pool, vendor.jooq));
    }
  }

  @Override
  public void close() {
    drop.run();
  }

  private static String randomName() {
    return "lh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  private static void admin(String url, String user, SqlDialect vendor, Consumer<DSLContext> ddl) {
    try (Connection c = DriverManager.getConnection(url, user, null)) {
      ddl.accept(DSL.using(c, vendor.jooq));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare the test database: " + e.getMessage(), e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
