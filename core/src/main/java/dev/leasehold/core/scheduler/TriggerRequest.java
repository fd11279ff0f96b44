package dev.leasehold.core.scheduler;

import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseNames;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A request for one run of a job by a live replica ({@code leasehold trigger}), kept in the
 * execution history: no store needs an operation of its own for it.
 *
 * <p>The command writes a {@link Outcome#REQUESTED} row under the history name {@link #QUEUE}; the
 * daemons read that name's newest rows every second ({@link TriggerRequests}). A replica that runs
 * the job takes the request under the job's lease ({@code acquire}): it reads the queue again, and
 * only when no {@link Outcome#TAKEN} row of the request is there yet, writes one and runs the job.
 * The run's row is the job's own, {@code manual}, with the request instant as its firing and a
 * detail that starts with {@link #runDetailPrefix()}.
 *
 * <p>Row layout (every field an {@link ExecutionRecord} already has): the request row's firing and
 * start are the request instant, its node is the requester, and its detail is {@code job=JOB
 * request=ID until=INSTANT}; the taken row has the same firing, the taking replica as node, the
 * lease's fence, and the detail {@code job=JOB request=ID}.
 *
 * @param id random, 12 hex digits
 * @param job the job to run
 * @param at the request instant (milliseconds), the run's firing
 * @param until no replica starts the request after this instant (its own clock)
 * @param by the requester's node name (the request row's node)
 */
public record TriggerRequest(String id, String job, Instant at, Instant until, String by) {

  /** The history name of the requests and of their taken rows. */
  public static final String QUEUE = "_leasehold.requests";

  private static final SecureRandom RANDOM = new SecureRandom();

  public TriggerRequest {
    Objects.requireNonNull(id, "id");
    LeaseNames.require(job);
    Objects.requireNonNull(by, "by");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(until, "until");
  }

  /** A new request for {@code job} by {@code by} at {@code now}, open for {@code timeout}. */
  public static TriggerRequest create(String job, String by, Instant now, Duration timeout) {
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    Instant at = now.truncatedTo(ChronoUnit.MILLIS);
    return new TriggerRequest(
        HexFormat.of().formatHex(bytes),
        job,
        at,
        at.plus(timeout).truncatedTo(ChronoUnit.MILLIS),
        by);
  }

  /** The row the command writes. */
  public ExecutionRecord requestRow() {
    return new ExecutionRecord(
        QUEUE,
        at,
        by,
        0,
        TriggerKind.MANUAL,
        at,
        at,
        Outcome.REQUESTED,
        null,
        "job=" + job + " request=" + id + " until=" + until);
  }

  /** The row a replica writes when it takes the request, before the run starts. */
  public ExecutionRecord takenRow(String node, long fence, Instant now) {
    return new ExecutionRecord(
        QUEUE,
        at,
        node,
        fence,
        TriggerKind.MANUAL,
        now,
        now,
        Outcome.TAKEN,
        null,
        "job=" + job + " request=" + id);
  }

  /** The request a {@link Outcome#REQUESTED} row of {@link #QUEUE} holds, if it is one. */
  public static Optional<TriggerRequest> of(ExecutionRecord row) {
    if (!QUEUE.equals(row.job()) || row.outcome() != Outcome.REQUESTED || row.detail() == null) {
      return Optional.empty();
    }
    String job = null;
    String id = null;
    Instant until = null;
    for (String part : row.detail().split(" ")) {
      if (part.startsWith("job=")) {
        job = part.substring(4);
      } else if (part.startsWith("request=")) {
        id = part.substring(8);
      } else if (part.startsWith("until=")) {
        try {
          until = Instant.parse(part.substring(6));
        } catch (DateTimeParseException e) {
          return Optional.empty();
        }
      }
    }
    if (job == null || id == null || until == null || !LeaseNames.isValid(job)) {
      return Optional.empty();
    }
    return Optional.of(new TriggerRequest(id, job, row.fireTime(), until, row.node()));
  }

  /** The taken row of this request among {@code rows}, if there. */
  public Optional<ExecutionRecord> takenIn(List<ExecutionRecord> rows) {
    String detail = "job=" + job + " request=" + id;
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

  /** The run's detail: the prefix, the requester, then what the run said, if anything. */
  String runDetail(String detail) {
    String prefix = runDetailPrefix() + " from " + by;
    return detail == null ? prefix : prefix + "; " + detail;
  }

  /** The run's row of this request among the job's {@code rows}, if there. */
  public Optional<ExecutionRecord> runIn(List<ExecutionRecord> rows) {
    String prefix = runDetailPrefix();
    return rows.stream()
        .filter(r -> r.job().equals(job) && r.trigger() == TriggerKind.MANUAL)
        .filter(r -> r.fireTime().equals(at) && r.detail() != null)
        .filter(r -> r.detail().equals(prefix) || r.detail().startsWith(prefix + " "))
        .findFirst();
  }
}
