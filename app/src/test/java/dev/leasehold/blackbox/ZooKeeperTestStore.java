package dev.leasehold.blackbox;

import dev.leasehold.store.zookeeper.ZooKeeperServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The {@code zookeeper} store for one test: ZooKeeper servers the test starts (free loopback ports,
 * a temp dir), stopped afterwards. The lease is stolen the way an operator would: {@code zkCli.sh
 * delete}.
 */
final class ZooKeeperTestStore implements BlackBoxStore {
  private static final String CHROOT = "/blackbox";
  private final ZooKeeperServers zookeeper;

  private ZooKeeperTestStore(ZooKeeperServers zookeeper) {
    this.zookeeper = zookeeper;
  }

  /** A standalone server (1) or an ensemble (3). */
  static ZooKeeperTestStore start(int servers) {
    return new ZooKeeperTestStore(ZooKeeperServers.start(servers));
  }

  @Override
  public String yaml() {
    return "type: zookeeper\nurl: "
        + zookeeper.url(CHROOT)
        + "\nkey-prefix: \""
        + zookeeper.prefix()
        + "\"\n";
  }

  /** {@code zkCli.sh delete <chroot>/<prefix>/leases/<name>}: the watermark and fence stay. */
  @Override
  public void stealLease(String name) {
    String path = CHROOT + "/" + zookeeper.prefix() + "/leases/" + name;
    List<String> command =
        List.of(
            "/usr/share/zookeeper/bin/zkCli.sh",
            "-server",
            zookeeper.connectString(),
            "delete",
            path);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0 || output.contains("Node does not exist")) {
        throw new AssertionError("zkCli.sh deleted no lease node " + path + ": " + output);
      }
    } catch (IOException e) {
      throw new AssertionError("cannot run zkCli.sh", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() {
    zookeeper.close();
  }

  @Override
  public String toString() {
    return "zookeeper " + zookeeper.url(CHROOT) + " prefix " + zookeeper.prefix();
  }
}
