package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.time.Duration;

/**
 * Run by {@link H2SharedFileTest} as a second JVM on the same H2 file: {@code args} are the URL, a
 * name the first process holds, and a name to acquire. Prints {@code result ...} lines.
 */
public final class H2SecondProcess {
  private H2SecondProcess() {}

  public static void main(String[] args) {
    Duration ttl = Duration.ofMinutes(5);
    try (StoreBackend backend = new SqlStoreFactory().open(StoreSettings.of("h2", args[0]))) {
      LeaseStore store = backend.leaseStore();
      System.out.println("result held-elsewhere=" + store.acquire(args[1], "child", ttl).isEmpty());
      System.out.println("result acquired=" + store.acquire(args[2], "child", ttl).isPresent());
    } catch (RuntimeException e) {
      System.out.println("result error=" + e.getClass().getSimpleName());
    }
  }
}
