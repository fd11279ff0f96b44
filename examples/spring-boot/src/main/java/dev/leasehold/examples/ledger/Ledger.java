package dev.leasehold.examples.ledger;

import dev.leasehold.core.exclusive.CurrentFiring;
import dev.leasehold.core.exclusive.FiringContext;
import dev.leasehold.spring.OncePerFiring;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Appends {@code FIRE_TIME NODE FENCE} to the file named by {@code LEDGER} at every firing of its
 * cron expression, on whichever replica claimed that firing, then works for {@code sample.work}.
 */
@Component
public class Ledger {
  private final Path ledger;
  private final Duration work;

  public Ledger(@Value("${LEDGER}") String ledger, @Value("${sample.work}") Duration work) {
    this.ledger = Path.of(ledger);
    this.work = work;
  }

  @OncePerFiring(name = "${sample.job}", ttl = "6s")
  @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
  public void append() throws IOException, InterruptedException {
    FiringContext run = CurrentFiring.get().orElseThrow();
    String line = run.firing() + " " + run.holder() + " " + run.fence() + "\n";
    // one small O_APPEND write: lines of several processes never interleave
    Files.writeString(
        ledger,
        line,
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND,
        StandardOpenOption.WRITE);
    Thread.sleep(work.toMillis());
  }
}
