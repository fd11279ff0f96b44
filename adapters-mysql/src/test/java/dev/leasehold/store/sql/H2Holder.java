package dev.leasehold.store.sql;

import java.sql.Connection;
import java.sql.DriverManager;

/** Run in its own JVM: opens the H2 URL in args[0], prints "open", holds it until killed. */
public final class H2Holder {
  private H2Holder() {}

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0])) {
      System.out.print("open\n");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
