package dev.leasehold.blackbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leasehold.app.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Chains ({@code after:}) and {@code leasehold backfill}, black-box, on the daemons of {@link
 * RetryScenario} (three daemons, two of them SIGKILLed along the way): {@code after-flaky} follows
 * each succeeded firing of {@code flaky} (whose first firing succeeds only at its third attempt),
 * {@code after-doomed} follows {@code doomed}, which always fails, and {@code on-doomed} follows
 * each finally failed firing of {@code doomed}. {@code etl} (every minute) is backfilled for five
 * minutes before the daemons started, then for seven: the second runs only the two new firings.
 * Judged on the ledgers (each run's {@code LEASEHOLD_FIRE_TIME}, node and fence) and the history.
 */
final class ChainAndBackfillScenario {
  private static final Duration LIMIT = Duration.ofSeconds(120);

  private final BlackBox box;
  private final Path afterFlaky;
  private final Path afterDoomed;
  private final Path onDoomed;
  private final Path etl;

  ChainAndBackfillScenario(BlackBox box) {
    this.box = box;
    this.afterFlaky = box.dir().resolve("ledger-after-flaky");
    this.afterDoomed = box.dir().resolve("ledger-after-doomed");
    this.onDoomed = box.dir().resolve("ledger-on-doomed");
    this.etl = box.dir().resolve("ledger-etl");
  }

  /** The jobs, in every daemon's file and the reader's. */
  List<String> jobs() {
    return List.of(
        Configs.ledgerJob("after-flaky", "after: flaky", afterFlaky),
        Configs.ledgerJob("after-doomed", "after: doomed", afterDoomed),
        Configs.ledgerJob("on-doomed", "after: {job: doomed, on: [failed]}", onDoomed),
        Configs.ledgerJob("etl", "every: 1m", etl));
  }

  /**
   * While a daemon still runs: five minutes of {@code etl} from before the daemons started, then
   * seven; each firing once, under its own instant, {@code backfill} in the history.
   */
  void backfill(Path config) {
    Instant minute = Instant.now().truncatedTo(ChronoUnit.MINUTES);
    Instant to = minute.minus(Duration.ofMinutes(5));
    Instant from = to.minus(Duration.ofMinutes(5));
    Cli.Result first = backfill(config, from, to);
    assertThat(first.code()).as("backfill: %s %s", first.out(), first.err()).isZero();
    assertThat(first.out()).contains("5 firings, 5 succeeded, 0 not");
    assertThat(backfilled(from, to)).containsExactlyElementsOf(minutes(from, 5));

    Instant wider = from.minus(Duration.ofMinutes(2));
    Cli.Result second = backfill(config, wider, to);
    assertThat(second.code()).as("backfill: %s %s", second.out(), second.err()).isZero();
    assertThat(second.out()).contains("7 firings, 7 succeeded, 0 not");
    assertThat(second.out().lines().filter(l -> l.endsWith("already succeeded"))).hasSize(5);
    assertThat(backfilled(wider, to)).containsExactlyElementsOf(minutes(wider, 7));
    List<JsonNode> rows = RetryScenario.rowsSurely(box, config, "etl");
    assertThat(rows)
        .filteredOn(r -> Instant.parse(r.get("fire_time").asText()).isBefore(to))
        .hasSize(7)
        .allMatch(r -> r.get("trigger").asText().equals("backfill"))
        .allMatch(r -> r.get("outcome").asText().equals("succeeded"));
    System.out.println("[blackbox] backfill: " + second.out().lines().toList());
  }

  private Cli.Result backfill(Path config, Instant from, Instant to) {
    return Cli.result(
        box.dir(),
        "backfill",
        "--config",
        config.toString(),
        "etl",
        "--from",
        from.toString(),
        "--to",
        to.toString(),
        "--max-parallel",
        "2");
  }

  /** The ledger's runs of etl in [from, to), in order of their firing; each firing once. */
  private List<Instant> backfilled(Instant from, Instant to) {
    List<Instant> fires =
        Ledger.read(etl).runs().stream()
            .map(Ledger.Entry::fire)
            .filter(f -> !f.isBefore(from) && f.isBefore(to))
            .sorted()
            .toList();
    assertThat(fires).as("each backfilled firing once").doesNotHaveDuplicates();
    return fires;
  }

  private static List<Instant> minutes(Instant from, int n) {
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(i -> from.plus(Duration.ofMinutes(i)))
        .toList();
  }

  /**
   * Before the daemons stop: every firing of flaky that succeeded and every finally failed firing
   * of doomed so far has its child's run.
   */
  void awaitChildren(Path config) {
    Poll.until(
        "a child run for each upstream firing that ended",
        LIMIT,
        () -> {
          Set<Instant> ok = fires(RetryScenario.rowsSurely(box, config, "flaky"), "succeeded");
          Set<Instant> failed = finallyFailed(RetryScenario.rowsSurely(box, config, "doomed"));
          return fires(afterFlaky).containsAll(ok) && fires(onDoomed).containsAll(failed);
        });
  }

  /** Once every daemon stopped: each child once per upstream firing it follows, and no other. */
  void judge(Path config) {
    List<JsonNode> flaky = RetryScenario.rowsSurely(box, config, "flaky");
    Set<Instant> ok = fires(flaky, "succeeded");
    List<Ledger.Entry> children = Ledger.read(afterFlaky).runs();
    assertThat(children).extracting(Ledger.Entry::fire).doesNotHaveDuplicates();
    assertThat(children)
        .as("after-flaky runs only under a succeeded firing of flaky, never a failed attempt's")
        .extracting(Ledger.Entry::fire)
        .allMatch(ok::contains)
        .isNotEmpty();
    assertThat(Ledger.read(afterDoomed).runs()).as("doomed never succeeds").isEmpty();
    List<Ledger.Entry> handlers = Ledger.read(onDoomed).runs();
    Set<Instant> failed = finallyFailed(RetryScenario.rowsSurely(box, config, "doomed"));
    assertThat(handlers).extracting(Ledger.Entry::fire).doesNotHaveDuplicates();
    assertThat(handlers)
        .as("on-doomed once per finally failed firing, not per attempt")
        .extracting(Ledger.Entry::fire)
        .allMatch(failed::contains)
        .isNotEmpty();
    // each child's history row names its upstream run's fence, the one that succeeded
    List<JsonNode> rows = RetryScenario.rowsSurely(box, config, "after-flaky");
    for (JsonNode row : rows) {
      assertThat(row.get("trigger").asText()).isEqualTo("after");
      Instant fire = Instant.parse(row.get("fire_time").asText());
      JsonNode upstream =
          flaky.stream()
              .filter(r -> r.get("outcome").asText().equals("succeeded"))
              .filter(r -> Instant.parse(r.get("fire_time").asText()).equals(fire))
              .findFirst()
              .orElseThrow();
      assertThat(row.get("detail").asText())
          .contains("after flaky fence " + upstream.get("fence").asLong());
    }
    System.out.println(
        "[blackbox] chains: after-flaky "
            + children.stream().map(e -> e.fire() + "@" + e.node()).toList()
            + ", on-doomed "
            + handlers.size());
  }

  private static Set<Instant> fires(List<JsonNode> rows, String outcome) {
    return rows.stream()
        .filter(r -> r.get("outcome").asText().equals(outcome))
        .map(r -> Instant.parse(r.get("fire_time").asText()))
        .collect(Collectors.toSet());
  }

  /** doomed's firings whose last attempt (the second) is recorded: both failed. */
  private static Set<Instant> finallyFailed(List<JsonNode> rows) {
    return rows.stream()
        .filter(r -> r.get("trigger").asText().equals("scheduled"))
        .filter(r -> r.get("outcome").asText().equals("failed") && r.get("attempt").asInt() == 2)
        .map(r -> Instant.parse(r.get("fire_time").asText()))
        .collect(Collectors.toSet());
  }

  private static Set<Instant> fires(Path ledger) {
    return Ledger.read(ledger).runs().stream()
        .map(Ledger.Entry::fire)
        .collect(Collectors.toCollection(java.util.HashSet::new));
  }
}
