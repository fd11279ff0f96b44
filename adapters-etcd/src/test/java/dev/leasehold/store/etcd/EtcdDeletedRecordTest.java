package dev.leasehold.store.etcd;

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
 * The deleted-record cases against one real etcd member: the operator runs {@code etcdctl del} on
 * every key of the job's record ({@code <prefix>lease/JOB}, {@code <prefix>fence/JOB} and {@code
 * <prefix>watermark/JOB}); fences are etcd revisions, which never go back, and the watermark comes
 * back from the high-water key {@code <prefix>highwater/JOB}, which stays.
 */
class EtcdDeletedRecordTest extends WatermarkRestoreCases {
  private static EtcdServers etcd;

  private final Logger logger = (Logger) LoggerFactory.getLogger(EtcdLeaseStore.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeAll
  static void startEtcd() {
    etcd = EtcdServers.start(1);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
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
    return new EtcdStoreFactory().open(etcd.settings());
  }

  @Override
  protected void deleteRecordByHand(String name) throws Exception {
    etcdctlDel(name, "lease/", "fence/", "watermark/");
  }

  @Override
  protected void deleteWatermarkByHand(String name) throws Exception {
    etcdctlDel(name, "watermark/");
  }

  @Override
  protected void deleteLeaseOnlyByHand(String name) throws Exception {
    etcdctlDel(name, "lease/");
  }

  @Override
  protected String watermarkRecord(String name) {
    return "watermark/" + name;
  }

  @Override
  protected List<String> warnings() {
    return logged.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private static void etcdctlDel(String name, String... keys) throws Exception {
    for (String key : List.of(keys)) {
      ProcessBuilder builder =
          new ProcessBuilder(
                  "etcdctl",
                  "--endpoints",
                  String.join(",", etcd.urls()),
                  "del",
                  etcd.prefix() + key + name)
              .redirectErrorStream(true);
      builder.environment().put("ETCDCTL_API", "3");
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (process.waitFor() != 0) {
        throw new AssertionError("etcdctl del " + key + name + " failed: " + output);
      }
    }
  }
}
