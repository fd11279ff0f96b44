package dev.leasehold.app.report;

import dev.leasehold.app.config.CheckConfig;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.check.CheckJournal;
import dev.leasehold.core.check.CheckStatus;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.StoreBackend;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One row per heartbeat check: its period, state, last ping and next deadline, read from the
 * store's journal on demand. Shown by {@code status} (a {@code checks:} section), {@code status
 * --json} (objects with {@code "kind": "check"} after the jobs), {@code GET /checks} and the status
 * page. A row holds no ping key.
 */
public final class CheckReport {
  /** The columns of the text table. */
  public static final List<String> COLUMNS =
      List.of("name", "schedule", "grace", "state", "last_ping", "next_deadline");

  private CheckReport() {}

  /** Reads each check's newest pings; a check whose pings cannot be read is {@code unknown}. */
  public static List<Map<String, Object>> rows(
      DaemonConfig config, StoreBackend store, Instant now) {
    Optional<CheckJournal> journal = store.journal().map(CheckJournal::new);
    return config.checks().stream().map(check -> row(check, journal, now)).toList();
  }

  private static Map<String, Object> row(
      CheckConfig check, Optional<CheckJournal> journal, Instant now) {
    CheckStatus status;
    try {
      status = journal.isPresent() ? journal.get().status(check.definition(), now) : unknown(check);
    } catch (RuntimeException e) {
      status = unknown(check);
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("name", check.name());
    row.put("kind", "check");
    row.put("schedule", status.schedule());
    row.put("grace", Durations.format(check.definition().grace()));
    row.put("state", status.state());
    row.put("last_ping", status.lastPing() == null ? null : FireTimes.format(status.lastPing()));
    row.put(
        "next_deadline",
        status.nextDeadline() == null ? null : FireTimes.format(status.nextDeadline()));
    return row;
  }

  private static CheckStatus unknown(CheckConfig check) {
    return new CheckStatus(
        check.name(), check.definition().describe(), CheckStatus.UNKNOWN, null, null);
  }
}
