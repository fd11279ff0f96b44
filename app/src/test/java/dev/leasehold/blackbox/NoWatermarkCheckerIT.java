package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.blackbox.broken.NoWatermarkStoreType;
import dev.leasehold.core.testing.InMemoryLeaseStore;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The checker must be able to fail: two daemons on a store that ignores the watermark ({@link
 * NoWatermarkStoreType}, test-only, on MariaDB), one with its clock 2 s behind. The late replica
 * claims every firing again after the first one released it, and {@link LedgerChecker} must report
 * those duplicates, naming both nodes.
 */
class NoWatermarkCheckerIT {
  @RegisterExtension final BlackBox box = new BlackBox();

  @Test
  void theCheckerReportsTheDuplicatesOfAStoreThatIgnoresTheWatermark() {
    SqlTestStore db = box.closeAfter(SqlTestStore.mariadb());
    Path ledger = box.dir().resolve("ledger");
    String job = Configs.ledgerJob("tick", "every: 1s", ledger);
    List<Path> testClasspath =
        List.of(codeSource(NoWatermarkStoreType.class), codeSource(InMemoryLeaseStore.class));
    String store = db.yaml(NoWatermarkStoreType.TYPE);
    List<Daemon> daemons =
        List.of(
            Daemon.start(
                box,
                "bb-on-time",
                Configs.write(box.dir(), "bb-on-time", store, Scenarios.LEASE, job),
                0,
                testClasspath),
            Daemon.start(
                box,
                "bb-late",
                Configs.write(box.dir(), "bb-late", store, Scenarios.LEASE, job),
                -2.0,
                testClasspath));
    daemons.forEach(Daemon::awaitStarted);
    Instant from = Scenarios.settled();
    Scenarios.awaitRuns(ledger, from, 10);
    Instant to = Instant.now().minusSeconds(3);
    Scenarios.stopAll(daemons);

    Ledger result = Ledger.read(ledger);
    LedgerChecker.Verdict verdict =
        LedgerChecker.every(Duration.ofSeconds(1)).window(from, to).check(result);
    System.out.println("[blackbox] the checker on a broken store says:\n" + verdict.report(result));
    assertThat(verdict.clean()).isFalse();
    assertThat(verdict.problems())
        .filteredOn(p -> p.startsWith("DUPLICATE"))
        .isNotEmpty()
        .anySatisfy(
            p -> assertThat(p).contains("bb-on-time fence", "bb-late fence", "ran 2 times"));
  }

  private static Path codeSource(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
