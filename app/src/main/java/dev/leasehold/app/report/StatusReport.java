package dev.leasehold.app.report;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.wiring.JobDigest;
import dev.leasehold.app.wiring.StoreWords;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Replicas;
import dev.leasehold.core.lease.RunSeats;
import dev.leasehold.core.schedule.AfterSchedule;
import dev.leasehold.core.scheduler.JobPolicy;
import dev.leasehold.core.scheduler.Overlap;
import dev.leasehold.core.scheduler.TriggerRequest;
import dev.leasehold.core.store.StoreBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One row per configured job: its schedule and next firing (from the configuration) next to its
 * lease (from the store). Shown by {@code status} and the admin {@code GET /jobs}. It reads the
 * store only, so it works from any machine that reaches the store, and it holds no credentials.
 */
public final class StatusReport {
  public static final List<String> COLUMNS =
      List.of(
          "name", "schedule", "next_fire", "holder", "lease_until", "last_fire", "fence", "paused");

  /** The header of a daemon's {@code GET /status} answer that carries its {@link #identity}. */
  public static final String IDENTITY_HEADER = "Leasehold-Status-Of";

  /** A random value {@code status} sends; the daemon answers it with {@link #PROOF_HEADER}. */
  public static final String CHALLENGE_HEADER = "Leasehold-Status-Challenge";

  /** {@link #proof} of the challenge, the identity and the body. */
  public static final String PROOF_HEADER = "Leasehold-Status-Proof";

  private StatusReport() {}

  /**
   * What {@code status} prints: the table (with {@code json}, the JSON array of {@link #rows}) and,
   * after the table, on a store that keeps node records, the nodes section (the {@code nodes} table
   * and its summary). A daemon's {@code GET /status} answers with this same text, so a {@code
   * status} that a local daemon answers prints what reading the store would.
   */
  public static String render(DaemonConfig config, StoreBackend store, Instant now, boolean json) {
    List<Map<String, Object>> rows = rows(config, store.leaseStore(), now);
    waiting(config, store, now, rows);
    List<Map<String, Object>> checks = CheckReport.rows(config, store, now);
    if (json) {
      List<Map<String, Object>> all = new java.util.ArrayList<>(rows);
      all.addAll(checks);
      return Json.write(all) + "\n";
    }
    StringBuilder out = new StringBuilder(TextTable.render(COLUMNS, forTable(rows)));
    if (!checks.isEmpty()) {
      out.append("\nchecks:\n").append(TextTable.render(CheckReport.COLUMNS, checks));
    }
    if (store.nodeRecords().isPresent()) {
      Replicas replicas = Replicas.of(store.nodeRecords().get().nodes(), now);
      List<Map<String, Object>> nodes = NodesReport.rows(replicas);
      out.append("\nnodes:\n");
      if (!nodes.isEmpty()) {
        out.append(TextTable.render(NodesReport.COLUMNS, NodesReport.forTable(nodes)));
      }
      NodesReport.summary(replicas)
          .forEach(
              line -> out.append(dev.leasehold.core.store.TerminalText.line(line)).append('\n'));
    }
    return out.toString();
  }

  /**
   * What a {@link #render status} belongs to: the store (type and address, without secrets), the
   * namespace, the job names in their order and the jobs normalized as for a {@link JobDigest}. A
   * daemon's answer is used by {@code status} only when its identity is the one of the command's
   * own file. The daemon sends it to whoever asks on loopback, so it is never an unkeyed hash of a
   * secret: with an admin token in the file it is {@code hmac:} and 16 hex digits of the text's
   * HMAC-SHA256 keyed by the token (the admin token, else the read token), the job definitions
   * whole; without one it is {@code sha256:} and 16 hex digits of the text with the values of
   * headers and environment variables left out and the declared secrets scrubbed ({@link
   * JobDigest#withoutSecrets}): a daemon whose file differs only there still answers then.
   */
  public static String identity(DaemonConfig config) {
    StringBuilder text = new StringBuilder();
    text.append(StoreWords.describe(config.store())).append('\n');
    text.append(config.namespace()).append('\n');
    config.jobs().forEach(job -> text.append(job.name()).append('\n'));
    // a file without checks keeps the identity it always had
    config.checks().forEach(c -> text.append("check ").append(c.definition()).append('\n'));
    java.util.Optional<String> token = token(config);
    if (token.isPresent()) {
      text.append(JobDigest.text(config.jobs()));
      return JobDigest.hmac(
          token.get().getBytes(java.nio.charset.StandardCharsets.UTF_8), text.toString());
    }
    text.append(JobDigest.withoutSecrets(config.jobs()));
    return JobDigest.sha256(text.toString());
  }

  /** The file's admin token, else its read token; empty when it has neither. */
  private static java.util.Optional<String> token(DaemonConfig config) {
    if (config.admin() == null) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.ofNullable(
        config.admin().token() != null ? config.admin().token() : config.admin().readToken());
  }

  /**
   * HMAC-SHA256, keyed by the file's admin token (else its read token), of the challenge, the
   * identity and the body: only a process that read the same file's token can answer it, and the
   * token itself never leaves the command. Empty when the file has no token.
   */
  public static java.util.Optional<String> proof(
      DaemonConfig config, String challenge, String body) {
    java.util.Optional<String> token = token(config);
    if (token.isEmpty()) {
      return java.util.Optional.empty();
    }
    String key = token.get();
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(
          new javax.crypto.spec.SecretKeySpec(
              key.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
      byte[] sum =
          mac.doFinal(
              (challenge + "\n" + identity(config) + "\n" + body)
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.Optional.of(java.util.HexFormat.of().formatHex(sum));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }

  /**
   * For each job with {@code after}: the firings of its upstream whose hand-off no replica has
   * taken yet, oldest first, as {@code waiting} (and, in the table, in place of the next firing,
   * which such a job has not). One read of the request queue, only when the file has such a job.
   */
  private static void waiting(
      DaemonConfig config, StoreBackend store, Instant now, List<Map<String, Object>> rows) {
    Map<String, List<Instant>> waiting;
    try {
      waiting = waitingChildren(config, store.executionLog(), now);
    } catch (RuntimeException e) {
      return; // the leases were read; the waiting children are left out
    }
    for (Map<String, Object> row : rows) {
      List<Instant> open = waiting.get((String) row.get("name"));
      if (open != null) {
        row.put("waiting", open.stream().map(FireTimes::format).toList());
      }
    }
  }

  /**
   * The children of a chain ({@code after}) by name, each with the firings of its upstream whose
   * hand-off no replica has taken yet, oldest first (the status table and the page show them). One
   * read of the request queue, and none when no job has {@code after}; a store error is thrown.
   */
  public static Map<String, List<Instant>> waitingChildren(
      DaemonConfig config, ExecutionLog log, Instant now) {
    List<String> chained =
        config.jobs().stream()
            .filter(j -> j.schedule() instanceof AfterSchedule)
            .map(JobConfig::name)
            .toList();
    if (chained.isEmpty()) {
      return Map.of();
    }
    List<ExecutionRecord> queue = log.recent(TriggerRequest.QUEUE, 200);
    List<TriggerRequest> requests =
        queue.stream().map(TriggerRequest::of).flatMap(Optional::stream).toList();
    Map<String, List<Instant>> out = new LinkedHashMap<>();
    for (String job : chained) {
      out.put(
          job,
          requests.stream()
              .filter(r -> r.kind() == TriggerKind.AFTER && r.job().equals(job))
              .filter(r -> !now.isAfter(r.until()) && r.takenIn(queue).isEmpty())
              .map(TriggerRequest::at)
              .distinct()
              .sorted()
              .toList());
    }
    return out;
  }

  /** Reads every lease in one call ({@link LeaseStore#list()}) and joins it with the jobs. */
  public static List<Map<String, Object>> rows(DaemonConfig config, LeaseStore store, Instant now) {
    Map<String, LeaseState> states =
        store.list().stream()
            .collect(Collectors.toMap(LeaseState::name, Function.identity(), (a, b) -> a));
    return config.jobs().stream()
        .map(
            job -> {
              Map<String, Object> row = row(job, states.get(job.name()), now);
              if (job.overlap() == Overlap.ALLOW) {
                // the runs going on under seats of their own, beside the job's lease
                row.put(
                    "runs",
                    states.values().stream()
                        .filter(s -> s.held() && RunSeats.isSeatOf(job.name(), s.name()))
                        .count());
              }
              return row;
            })
        .toList();
  }

  static Map<String, Object> row(JobConfig job, LeaseState state, Instant now) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("name", job.name());
    row.put("schedule", job.schedule().describe());
    row.put("next_fire", job.schedule().nextAfter(now).map(FireTimes::format).orElse(null));
    row.put("overlap", job.overlap().label());
    row.put("buffered", buffered(job, state, now).map(FireTimes::format).orElse(null));
    row.put("holder", state == null ? null : state.currentHolder().orElse(null));
    row.put("lease_until", state == null ? null : FireTimes.format(state.leaseUntil()));
    row.put("last_fire", state == null ? null : FireTimes.format(state.lastFire()));
    row.put("fence", state == null ? 0L : state.fence());
    row.put("paused", state == null || state.pause() == null ? null : paused(state.pause()));
    return row;
  }

  /**
   * The firing that waits behind the running run of a {@code buffer-one} or {@code replace} job:
   * while the job's lease is held, the first firing after its watermark (the running firing), once
   * it is due and while it is within its misfire grace. The replicas compute the same firing from
   * the same schedule and watermark.
   */
  public static Optional<Instant> buffered(JobConfig job, LeaseState state, Instant now) {
    if ((job.overlap() != Overlap.BUFFER_ONE && job.overlap() != Overlap.REPLACE)
        || state == null
        || !state.held()
        || state.lastFire() == null) {
      return Optional.empty();
    }
    Duration grace =
        (job.misfireGrace() == null ? JobPolicy.DEFAULT_MISFIRE_GRACE : job.misfireGrace())
            .plusSeconds(1);
    return job.schedule()
        .nextAfter(state.lastFire())
        .filter(f -> !f.isAfter(now) && Duration.between(f, now).compareTo(grace) <= 0);
  }

  /** A pause as the {@code paused} object of {@code status --json} and {@code /jobs}. */
  public static Map<String, Object> paused(Pause pause) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("since", FireTimes.format(pause.since()));
    p.put("by", pause.by());
    p.put("reason", pause.reason());
    p.put("stop_running", pause.stopRunning());
    return p;
  }

  /** The rows for the text table: the {@code paused} object as one phrase. */
  public static List<Map<String, Object>> forTable(List<Map<String, Object>> rows) {
    return rows.stream()
        .map(
            r -> {
              Map<String, Object> copy = new LinkedHashMap<>(r);
              if (copy.remove("buffered") instanceof String b) {
                copy.put("next_fire", "waiting: " + b);
              }
              if (copy.remove("waiting") instanceof List<?> w && !w.isEmpty()) {
                copy.put(
                    "next_fire",
                    "waiting: " + w.get(0) + (w.size() > 1 ? " +" + (w.size() - 1) : ""));
              }
              if (r.get("paused") instanceof Map<?, ?> p) {
                copy.put(
                    "paused",
                    "since "
                        + p.get("since")
                        + " by "
                        + p.get("by")
                        + (Boolean.TRUE.equals(p.get("stop_running")) ? " (stop running)" : "")
                        + (p.get("reason") == null ? "" : ": " + p.get("reason")));
              }
              return copy;
            })
        .toList();
  }

  /** {@code paused since T by U: reason}, for the pause command's answer. */
  public static String describe(Pause pause) {
    return "paused since "
        + FireTimes.format(pause.since())
        + " by "
        + pause.by()
        + (pause.stopRunning() ? ", stopping a running run" : "")
        + (pause.reason() == null ? "" : ": " + pause.reason())
        + "; no replica starts a new firing of it";
  }
}
