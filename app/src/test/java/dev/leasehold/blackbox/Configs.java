package dev.leasehold.blackbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** Writes daemon configuration files (docs/configuration.md) for the black-box tests. */
final class Configs {
  /** What a run appends: {@code FIRE NODE FENCE}, one line, one write. */
  static final String LEDGER_LINE = "$LEASEHOLD_FIRE_TIME $LEASEHOLD_NODE $LEASEHOLD_FENCE";

  private Configs() {}

  /**
   * A config with one store, a lease section and the given jobs (YAML list items).
   *
   * @param store the lines of the {@code store:} section, unindented
   * @param lease the lines of the {@code lease:} section, unindented
   */
  static Path write(Path dir, String node, String store, String lease, String... jobs) {
    StringBuilder yaml = new StringBuilder();
    yaml.append("node: ").append(node).append('\n');
    yaml.append("shutdown-grace: 5s\n");
    yaml.append("store:\n").append(indent(store));
    yaml.append("lease:\n").append(indent(lease));
    yaml.append("jobs:\n");
    for (String job : jobs) {
      yaml.append(indent("- " + indent(job).strip()));
    }
    Path file = dir.resolve(node + ".yaml");
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /**
   * A job that appends {@code FIRE NODE FENCE} to {@code ledger}. It is short on purpose: a run
   * that outlasts the 1 s period makes the next firing an overlap, which is skipped by design.
   */
  static String ledgerJob(String name, String schedule, Path ledger) {
    String script = "echo \"" + LEDGER_LINE + "\" >> \"" + ledger + "\"";
    return "name: " + name + "\n" + schedule + "\n" + shell(script);
  }

  /**
   * {@code command: [sh, -c, script]}, the script single-quoted for YAML, with {@code LD_PRELOAD}
   * emptied: a skewed daemon runs under libfaketime, which shares one semaphore with every process
   * it starts, and a run's process killed while holding it (the supervisor's watcher, a stopped
   * job) left every later process start of that daemon hanging. The jobs' ledgers carry the
   * daemon's own firing, node and fence, never the job's clock.
   */
  static String shell(String script) {
    if (script.contains("${")) {
      throw new IllegalArgumentException("${...} would be a config placeholder: " + script);
    }
    return "command:\n  - sh\n  - -c\n  - " + quote(script) + "\nenv:\n  LD_PRELOAD: ''";
  }

  static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  private static String indent(String lines) {
    return lines.lines().map(l -> "  " + l).collect(Collectors.joining("\n", "", "\n"));
  }
}
