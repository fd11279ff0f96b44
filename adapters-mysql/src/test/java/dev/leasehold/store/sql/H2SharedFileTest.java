package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Embedded H2 across processes: with the default {@code AUTO_SERVER=TRUE} a second JVM shares the
 * file (and its leases) with the first; with {@code AUTO_SERVER=FALSE} it cannot open it at all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class H2SharedFileTest {
  private static final Duration TTL = Duration.ofMinutes(5);

  @TempDir Path dir;

  @Test
  void aSecondProcessSharesTheFileAndItsLeases() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("shared");
    try (StoreBackend backend = new SqlStoreFactory().open(StoreSettings.of("h2", url))) {
      LeaseStore store = backend.leaseStore();
      store.acquire("held-by-parent", "parent", TTL).orElseThrow();
      List<String> results = runSecondProcess(url, "held-by-parent", "taken-by-child");
      assertThat(results).containsExactly("held-elsewhere=true", "acquired=true");
      assertThat(store.inspect("taken-by-child").orElseThrow().currentHolder()).contains("child");
    }
  }

  @Test
  void withoutAutoServerASecondProcessCannotOpenTheFile() throws Exception {
    String url = "jdbc:h2:file:" + dir.resolve("private") + ";AUTO_SERVER=FALSE";
    try (StoreBackend backend = new SqlStoreFactory().open(StoreSettings.of("h2", url))) {
      backend.leaseStore().acquire("held-by-parent", "parent", TTL).orElseThrow();
      assertThat(runSecondProcess(url, "held-by-parent", "taken-by-child"))
          .containsExactly("error=StoreUnreachableException");
    }
  }

  private static List<String> runSecondProcess(String url, String held, String free)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                H2SecondProcess.class.getName(),
                url,
                held,
                free)
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return output
        .lines()
        .filter(l -> l.startsWith("result "))
        .map(l -> l.substring("result ".length()))
        .toList();
  }
}
