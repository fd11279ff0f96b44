package dev.leasehold.store.zookeeper;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.storekit.lease.WatermarkRestoreCases;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.slf4j.LoggerFactory;

/**
 * The deleted-record cases against one real ZooKeeper server: the operator runs {@code zkCli.sh
 * delete} on both nodes of the job ({@code <chroot>/<prefix>/leases/JOB} and {@code
 * <chroot>/<prefix>/jobs/JOB}); fences are zxids, which never go back, and the watermark comes back
 * from the high-water node {@code highwater/JOB}, which stays.
 */
class ZooKeeperDeletedRecordTest extends WatermarkRestoreCases {
  private static final String CHROOT = "/leasehold-test";
  private static ZooKeeperServers zookeeper;

  private final Logger logger = (Logger) LoggerFactory.getLogger(ZooKeeperLeaseStore.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeAll
  static void startZooKeeper() {
    zookeeper = ZooKeeperServers.start(1);
  }

  @AfterAll
  static void stopZooKeeper() {
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @BeforeEach
  void listen() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(logged);
  }

  @Override
  protected StoreBackend createBackend() {
    return new ZooKeeperStoreFactory().open(zookeeper.settings());
  }

  @Override
  protected void deleteRecordByHand(String name) throws Exception {
    zkCliDelete(name, "leases/", "jobs/");
  }

  @Override
  protected void deleteWatermarkByHand(String name) throws Exception {
    zkCliDelete(name, "jobs/");
  }

  @Override
  protected void deleteLeaseOnlyByHand(String name) throws Exception {
    zkCliDelete(name, "leases/");
  }

  @Override
  protected String watermarkRecord(String name) {
    return "jobs/" + name;
  }

  @Override
  protected List<String> warnings() {
    return logged.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  /** {@code zkCli.sh delete} of each node of {@code name}; a node that is not there is no error. */
  private static void zkCliDelete(String name, String... parents) throws Exception {
    for (String parent : parents) {
      String path = CHROOT + "/" + zookeeper.prefix() + "/" + parent + name;
      Process process =
          new ProcessBuilder(
                  "/usr/share/zookeeper/bin/zkCli.sh",
                  "-server",
                  zookeeper.connectString(),
                  "delete",
                  path)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      // after a release there is no lease node: zkCli.sh then says so and exits 1
      if (process.waitFor() != 0 && !output.contains("Node does not exist")) {
        throw new AssertionError("zkCli.sh delete " + path + " failed: " + output);
      }
    }
  }
}
