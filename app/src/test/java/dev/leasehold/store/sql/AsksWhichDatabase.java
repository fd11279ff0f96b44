package dev.leasehold.store.sql;

/**
 * A fixture for {@code SqlStoreLayoutTest}: a class of the SQL store's package that branches on one
 * database, uses H2's API and lets jOOQ run a statement, as the layout forbids (outside the
 * dialects, outside the H2 classes, anywhere).
 */
final class AsksWhichDatabase {
  private AsksWhichDatabase() {}

  static boolean embedded(SqlDialect dialect) throws java.sql.SQLException {
    org.h2.tools.Server.createTcpServer();
    return dialect == SqlDialect.H2;
  }

  static int count(org.jooq.DSLContext db) {
    return db.fetchCount(Tables.LOCK);
  }
}
