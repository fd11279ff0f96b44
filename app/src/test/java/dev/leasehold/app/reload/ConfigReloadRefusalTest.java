package dev.leasehold.app.reload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reload of a file with several errors is refused with all of them, as validate prints them. */
class ConfigReloadRefusalTest {
  @TempDir Path dir;

  @Test
  void aRefusedReloadNamesEveryErrorOfTheFile() throws Exception {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(
        file,
        "jobs:\n"
            + "  - name: a\n    every: banana\n    command: [\"true\"]\n"
            + "  - name: b\n    every: 5s\n    command: [\"true\"]\n    overlap: sometimes\n");
    ConfigReload reload =
        new ConfigReload(
            null,
            () -> {
              new ConfigLoader(Map.of(), "host-1").load(file);
              throw new AssertionError("the file should be refused");
            },
            null,
            config -> List.of(),
            new ConfigReload.Listener() {},
            Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC),
            false);

    ConfigReload.Outcome outcome = reload.reload();

    assertThat(outcome).isInstanceOf(ConfigReload.Refused.class);
    ConfigReload.Refused refused = (ConfigReload.Refused) outcome;
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.reason())
        .doesNotContain("\n")
        .contains(file + ": jobs[0].every: ")
        .contains(" | " + file + ": jobs[1].overlap: expected skip or buffer-one");
    assertThat(reload.lastFailure().orElseThrow().reason()).isEqualTo(refused.reason());
  }
}
