package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseNames;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A request for one run of a job by a live replica, kept in the execution history: no store needs
 * an operation of its own for it. Three kinds share it: {@code leasehold trigger} ({@link
 * TriggerKind#MANUAL}), the hand-off of a chain ({@link TriggerKind#AFTER}: a job with {@code
 * after:} runs once for a final run of its upstream, written by the upstream's replica before the
 * upstream's final row, see {@link Chains}), and {@code leasehold backfill} ({@link
 * TriggerKind#BACKFILL}: one past firing of the job, see {@link BackfillRule}).
 *
 * <p>The requester writes a {@link Outcome#REQUESTED} row under the history name {@link #QUEUE};
 * the daemons read that name's newest rows every second ({@link TriggerRequests}). A replica that
 * runs the job takes the request under the job's lease ({@code acquire}): it reads the queue again,
 * and only when no {@link Outcome#TAKEN} row of the request is there yet, writes one and runs the
 * job. The run's row is the job's own, of the request's kind, with the request's firing as its
 * firing and a detail that starts with {@link #runDetailPrefix()}.
 *
 * <p>Row layout (every field an {@link ExecutionRecord} already has): the request row's firing is
 * the run's firing (a manual request: the request instant; a chain's: the upstream's firing; a
 * backfill's: the past firing), its start is when it was written, its node is the requester, and
 * its detail is {@code job=JOB request=ID until=INSTANT}, followed by {@code trigger=after
 * upstream=JOB fence=N} or {@code trigger=backfill} for those kinds; the taken row has the same
 * firing, the taking replica as node, the lease's fence, and the detail {@code job=JOB request=ID}
 * ({@code trigger=KIND} appended for the two other kinds).
 *
 * @param id 12 hex digits: random, or for a chain derived from the child, the upstream and the
 *     firing (so a hand-off written twice is one request)
 * @param job the job to run
 * @param at the run's firing (milliseconds)
 * @param until no replica starts the request after this instant (its own clock)
 * @param by the requester's node name (the request row's node)
 * @param kind the run's trigger
 * @param written when the request row was written (its start; ordering only)
 * @param upstream for {@link TriggerKind#AFTER}: the upstream job, else {@code null}
 * @param upstreamFence for {@link TriggerKind#AFTER}: the upstream run's fence, else 0
 */
public record TriggerRequest(
    String id,
    String job,
    Instant at,
    Instant until,
    String by,
    TriggerKind kind,
    Instant written,
    String upstream,
    long upstreamFence) {

  /** The history name of the requests and of their taken rows. */
  public static final String QUEUE = "_leasehold.requests";

  /** How long a chain's hand-off stays open for the daemons. */
  public static final Duration AFTER_OPEN = Duration.ofDays(1);

  private static final SecureRandom RANDOM = new SecureRandom();

  public TriggerRequest {
    Objects.requireNonNull(id, "id");
    LeaseNames.require(job);
    Objects.requireNonNull(by, "by");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(until, "until");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(written, "written");
    if (kind == TriggerKind.SCHEDULED) {
      throw new IllegalArgumentException("a request is never a scheduled run");
    }
  }

  /** A manual request, written at its firing. */
  public TriggerRequest(String id, String job, Instant at, Instant until, String by) {
    this(id, job, at, until, by, TriggerKind.MANUAL, at, null, 0);
  }

  /** A new request for {@code job} by {@code by} at {@code now}, open for {@code timeout}. */
  public static TriggerRequest create(String job, String by, Instant now, Duration timeout) {
    Instant at = now.truncatedTo(ChronoUnit.MILLIS);
    return new TriggerRequest(randomId(), job, at, at.plus(timeout), by);
  }

  /** A backfill request: one run of {@code job}'s past {@code firing}, open for {@code timeout}. */
  public static TriggerRequest backfill(
      String job, Instant firing, String by, Instant now, Duration timeout) {
    Instant written = now.truncatedTo(ChronoUnit.MILLIS);
    return new TriggerRequest(
        randomId(),
        job,
        firing.truncatedTo(ChronoUnit.MILLIS),
        written.plus(timeout),
        by,
        TriggerKind.BACKFILL,
        written,
        null,
        0);
  }

  /**
   * The hand-off of a chain: one run of {@code child} for the final run {@code upstream} of its
   * upstream job, written by {@code by} at {@code now}. Its id is derived from the child, the
   * upstream and the firing, so the same hand-off written twice is one request.
   */
  public static TriggerRequest after(
      String child, ExecutionRecord upstream, String by, Instant now) {
    Instant written = now.truncatedTo(ChronoUnit.MILLIS);
    String key = child + "\n" + upstream.job() + "\n" + upstream.fireTime().toEpochMilli();
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return new TriggerRequest(
        HexFormat.of().formatHex(digest, 0, 6),
        child,
        upstream.fireTime().truncatedTo(ChronoUnit.MILLIS),
        written.plus(AFTER_OPEN),
        by,
        TriggerKind.AFTER,
        written,
        upstream.job(),
        upstream.fence());
  }

  private static String randomId() {
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** The row the requester writes. */
  public ExecutionRecord requestRow() {
    String more =
        switch (kind) {
          case AFTER -> " trigger=after upstream=" + upstream + " fence=" + upstreamFence;
          case BACKFILL -> " trigger=backfill";
          default -> "";
        };
    return new ExecutionRecord(
        QUEUE,
        at,
        by,
        0,
        kind,
        written,
        written,
        Outcome.REQUESTED,
        null,
        "job=" + job + " request=" + id + " until=" + until + more);
  }

  /** The row a replica writes when it takes the request, before the run starts. */
  public ExecutionRecord takenRow(String node, long fence, Instant now) {
    return new ExecutionRecord(
        QUEUE, at, node, fence, kind, now, now, Outcome.TAKEN, null, takenDetail());
  }

  private String takenDetail() {
    return "job="
        + job
        + " request="
        + id
        + (kind == TriggerKind.MANUAL ? "" : " trigger=" + kind.label());
  }

  /** The request a {@link Outcome#REQUESTED} row of {@link #QUEUE} holds, if it is one. */
  public static Optional<TriggerRequest> of(ExecutionRecord row) {
    if (!QUEUE.equals(row.job()) || row.outcome() != Outcome.REQUESTED || row.detail() == null) {
      return Optional.empty();
    }
    Map<String, String> f = fields(row.detail());
    String job = f.get("job");
    String id = f.get("request");
    Instant until;
    TriggerKind kind;
    long fence;
    try {
      until = Instant.parse(f.getOrDefault("until", ""));
      kind = TriggerKind.valueOf(f.getOrDefault("trigger", "manual").toUpperCase(Locale.ROOT));
      fence = Long.parseLong(f.getOrDefault("fence", "0"));
    } catch (DateTimeParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
    String upstream = f.get("upstream");
    if (job == null
        || id == null
        || !LeaseNames.isValid(job)
        || kind == TriggerKind.SCHEDULED
        || (kind == TriggerKind.AFTER && upstream == null)) {
      return Optional.empty();
    }
    Instant written = kind == TriggerKind.MANUAL ? row.fireTime() : row.startedAt();
    return Optional.of(
        new TriggerRequest(
            id,
            job,
            row.fireTime(),
            until,
            row.node(),
            kind,
            written,
            kind == TriggerKind.AFTER ? upstream : null,
            kind == TriggerKind.AFTER ? fence : 0));
  }

  /** The {@code key=value} words of a detail. */
  static Map<String, String> fields(String detail) {
    Map<String, String> fields = new HashMap<>();
    for (String part : detail.split(" ")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        fields.putIfAbsent(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return fields;
  }

  /** The taken row of this request among {@code rows}, if there. */
  public Optional<ExecutionRecord> takenIn(List<ExecutionRecord> rows) {
    String detail = takenDetail();
    return rows.stream()
        .filter(r -> QUEUE.equals(r.job()) && r.outcome() == Outcome.TAKEN)
        .filter(r -> r.fireTime().equals(at) && detail.equals(r.detail()))
        .findFirst();
  }

  /** Whether this request's own row is among {@code rows}. */
  public boolean requestedIn(List<ExecutionRecord> rows) {
    return rows.stream().map(TriggerRequest::of).anyMatch(r -> r.isPresent() && equals(r.get()));
  }

  /** How the run's detail begins: {@code triggered by request ID}. */
  public String runDetailPrefix() {
    return "triggered by request " + id;
  }

  /** The run's detail: the prefix, the requester (or upstream), then what the run said. */
  String runDetail(String detail) {
    String prefix =
        runDetailPrefix()
            + " from "
            + by
            + (kind == TriggerKind.AFTER ? " after " + upstream + " fence " + upstreamFence : "");
    return detail == null ? prefix : prefix + "; " + detail;
  }

  /** The run's row of this request among the job's {@code rows}, if there. */
  public Optional<ExecutionRecord> runIn(List<ExecutionRecord> rows) {
    String prefix = runDetailPrefix();
    return rows.stream()
        .filter(r -> r.job().equals(job) && r.trigger() == kind)
        .filter(r -> r.fireTime().equals(at) && r.detail() != null)
        .filter(r -> r.detail().equals(prefix) || r.detail().startsWith(prefix + " "))
        .findFirst();
  }
}
