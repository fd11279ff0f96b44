package dev.leasehold.blackbox;

import dev.leasehold.store.etcd.EtcdServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The {@code etcd} store for one test: etcd members the test starts (free loopback ports, a temp
 * dir), stopped afterwards. The lease is stolen the way an operator would: {@code etcdctl del}.
 */
final class EtcdTestStore implements BlackBoxStore {
  /** Replicas fire on their own clocks here: a fast one's restart may skip a firing. */
  @Override
  public boolean firesOnItsClock() {
    return false;
  }

  private final EtcdServers etcd;

  private EtcdTestStore(EtcdServers etcd) {
    this.etcd = etcd;
  }

  /** A cluster of {@code members} etcd processes. */
  static EtcdTestStore start(int members) {
    return new EtcdTestStore(EtcdServers.start(members));
  }

  EtcdServers servers() {
    return etcd;
  }

  @Override
  public String yaml() {
    StringBuilder yaml = new StringBuilder("type: etcd\nurls:\n");
    etcd.urls().forEach(url -> yaml.append("  - ").append(url).append('\n'));
    return yaml.append("key-prefix: \"").append(etcd.prefix()).append("\"\n").toString();
  }

  /** {@code etcdctl del <prefix>lease/<name>}: the lease goes, the watermark and fence stay. */
  @Override
  public void stealLease(String name) {
    List<String> command =
        List.of(
            "etcdctl",
            "--endpoints",
            String.join(",", etcd.urls()),
            "del",
            etcd.prefix() + "lease/" + name);
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().put("ETCDCTL_API", "3");
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0 || !output.trim().equals("1")) {
        throw new AssertionError("etcdctl del deleted no lease key for " + name + ": " + output);
      }
    } catch (IOException e) {
      throw new AssertionError("cannot run etcdctl", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() {
    etcd.close();
  }

  @Override
  public String toString() {
    return "etcd " + etcd.urls() + " prefix " + etcd.prefix();
  }
}
