package dev.leasehold.store.zookeeper;

import java.util.regex.Pattern;

/**
 * The nodes of one store: {@code
 * <chroot>/<key-prefix>/{jobs,leases,highwater,history,clock,nodes}}. The chroot comes from the
 * URL, the key prefix (default {@code leasehold}) from {@code store.key-prefix}.
 */
final class ZooKeeperPaths {
  static final String DEFAULT_PREFIX = "leasehold";
  private static final Pattern PREFIX =
      Pattern.compile("[A-Za-z0-9._-]{1,100}(/[A-Za-z0-9._-]{1,100}){0,7}");

  private final String base;
  private volatile boolean laidOut;

  /** {@code chroot} is empty or starts with a slash; {@code prefix} is relative. */
  ZooKeeperPaths(String chroot, String prefix) {
    this.base = chroot + "/" + (prefix == null ? DEFAULT_PREFIX : prefix);
  }

  static String problem(String prefix) {
    return PREFIX.matcher(prefix).matches()
        ? null
        : "expected path segments of A-Z a-z 0-9 . _ - separated by /, got " + prefix;
  }

  String jobs() {
    return base + "/jobs";
  }

  String job(String name) {
    return base + "/jobs/" + name;
  }

  String leases() {
    return base + "/leases";
  }

  String lease(String name) {
    return base + "/leases/" + name;
  }

  String highWaters() {
    return base + "/highwater";
  }

  /** The high-water mark of {@code name} ({@link HighWater}). */
  String highWater(String name) {
    return base + "/highwater/" + name;
  }

  String nodes() {
    return base + "/nodes";
  }

  String history() {
    return base + "/history";
  }

  String history(String job) {
    return base + "/history/" + job;
  }

  String clock() {
    return base + "/clock";
  }

  /** Creates the parent nodes once per process (idempotent, so a race is harmless). */
  void ensureLayout(ZooKeeperSession session) {
    if (!laidOut) {
      session.ensure(jobs());
      session.ensure(leases());
      session.ensure(highWaters());
      session.ensure(history());
      session.ensure(clock());
      laidOut = true;
    }
  }

  @Override
  public String toString() {
    return base;
  }
}
