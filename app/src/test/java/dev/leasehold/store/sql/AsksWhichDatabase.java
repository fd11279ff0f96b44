package dev.leasehold.store.sql;

/**
 * A fixture for {@code SqlStoreLayoutTest}: a class of the SQL store's package that branches on one
 * database and uses H2's API, as the layout forbids outside the dialects and the H2 classes.
 */
final class AsksWhichDatabase {
  private AsksWhichDatabase() {}

  static boolean embedded(SqlDialect dialect) throws java.sql.SQLException {
    org.h2.tools.Server.createTcpServer();
    return dialect == SqlDialect.H2;
  }
}
