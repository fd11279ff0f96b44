package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
import dev.leasehold.core.job.JobResult;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.StopReason;
import dev.leasehold.core.schedule.Durations;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * A run's history record and its execution line: the outcome is the stop reason's when a stop came
 * (lease lost, timed out, shutdown), else the body's. The lines keep the logger name they always
 * had ({@code dev.leasehold.core.scheduler.JobRun}), so log settings that name it still apply.
 */
final class RunRecords {
  private static final Logger log = LoggerFactory.getLogger("dev.leasehold.core.scheduler.JobRun");

  private RunRecords() {}

  /** The record of a body that ran from {@code startedAt} for {@code millis}. */
  static ExecutionRecord ran(
      JobContext context, long fence, Instant startedAt, Instant now, long millis, JobResult r) {
    Outcome outcome = context.stopReason().map(RunRecords::outcomeOf).orElse(r.outcome());
    String detail = r.detail();
    if (context.stopReason().isPresent()) {
      String why = "stopped: " + context.stopReason().get().name().toLowerCase().replace('_', ' ');
      detail = detail == null ? why : why + "; " + detail;
    }
    ExecutionRecord record =
        new ExecutionRecord(
            context.job(),
            context.firing(),
            context.node(),
            fence,
            context.trigger(),
            startedAt,
            now,
            outcome,
            r.exitCode(),
            detail,
            r.output(),
            context.attempt());
    // failures at WARN; the fields again as key-value pairs for JSON logs
    log.atLevel(outcome == Outcome.SUCCEEDED ? Level.INFO : Level.WARN)
        .addKeyValue("job", context.job())
        .addKeyValue("firing", context.firing().toString())
        .addKeyValue("node", context.node())
        .addKeyValue("fence", fence)
        .addKeyValue("trigger", context.trigger().label())
        .addKeyValue("outcome", outcome.label())
        .addKeyValue("attempt", context.attempt())
        .addKeyValue("duration_ms", millis)
        .log(
            "execution job={} firing={} node={} fence={} trigger={} outcome={} duration={}{}{}",
            context.job(),
            context.firing(),
            context.node(),
            fence,
            context.trigger().label(),
            outcome.label(),
            Durations.human(Duration.ofMillis(millis)),
            context.attempt() == 1 ? "" : " attempt=" + context.attempt(),
            detail == null ? "" : " detail=" + quoted(detail));
    return record;
  }

  /** The record of a run whose body never started: {@code outcome}, or the stop reason's. */
  static ExecutionRecord notRun(
      JobContext context, long fence, Instant now, Outcome outcome, String detail) {
    Outcome recorded = context.stopReason().map(RunRecords::outcomeOf).orElse(outcome);
    log.warn(
        "execution job={} firing={} node={} fence={} outcome={} detail={}",
        context.job(),
        context.firing(),
        context.node(),
        fence,
        recorded.label(),
        quoted(detail));
    return new ExecutionRecord(
        context.job(),
        context.firing(),
        context.node(),
        fence,
        context.trigger(),
        now,
        now,
        recorded,
        null,
        detail,
        null);
  }

  /** A detail as one quoted token: quotes and backslashes escaped, line breaks as \\n. */
  static String quoted(String detail) {
    return "\""
        + detail
            .replace("\\", "\\\\")
            .replace("\"", "\\\"")
            .replace("\r", "\\r")
            .replace("\n", "\\n")
        + "\"";
  }

  private static Outcome outcomeOf(StopReason reason) {
    return switch (reason) {
      case LEASE_LOST -> Outcome.LEASE_LOST;
      case TIMED_OUT -> Outcome.TIMED_OUT;
      case SHUTDOWN -> Outcome.FAILED;
      case REPLACED -> Outcome.REPLACED;
    };
  }
}
