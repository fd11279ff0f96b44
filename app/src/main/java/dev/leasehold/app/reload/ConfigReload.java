package dev.leasehold.app.reload;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.core.scheduler.JobChanges;
import dev.leasehold.core.scheduler.JobDefinition;
import dev.leasehold.core.scheduler.Scheduler;
import dev.leasehold.core.store.Redaction;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reload without a restart (SIGHUP, {@code POST /reload}): reads the whole file again through the
 * same checks as {@code validate} and {@code run} ({@link PreparedConfig#load}), refuses a file
 * that fails them or that changes something only a restart can apply ({@link RestartNeeded}), and
 * otherwise hands the new job list to {@link Scheduler#replaceJobs}. A refused reload changes
 * nothing: it logs one ERROR line (the file, the field, the problem, as {@code validate} prints
 * it), counts as failed and is kept as {@link #lastFailure} for the status page.
 *
 * <p>One reload at a time (a second waits for the first); the scheduler's own state changes in its
 * slot owner, not here.
 */
public final class ConfigReload {
  private static final Logger log = LoggerFactory.getLogger(ConfigReload.class);

  /** Reads and checks the file, as {@code run} did at start. */
  @FunctionalInterface
  public interface Source {
    PreparedConfig load() throws ConfigException;
  }

  /** Hears each reload's verdict (metrics, notifier). */
  public interface Listener {
    /** A new configuration is about to be applied: called before the scheduler takes its jobs. */
    default void applying(DaemonConfig config) {}

    /** The reload was applied. */
    default void applied() {}

    /** The reload was refused: nothing changed. */
    default void failed() {}
  }

  /** What one reload did. */
  public sealed interface Outcome permits Applied, Refused {}

  /** The new file applied: these jobs were added, removed, changed. */
  public record Applied(String file, JobChanges changes) implements Outcome {}

  /**
   * Nothing changed. {@code status} is the HTTP answer: 400 for a file that fails the checks, 422
   * for one that needs a restart, 503 when the daemon is stopping.
   */
  public record Refused(int status, String reason) implements Outcome {}

  /** One line of what a reload did, for the audit trail. */
  public static String describe(Outcome outcome) {
    if (outcome instanceof Applied a) {
      return "applied: added "
          + a.changes().added()
          + ", removed "
          + a.changes().removed()
          + ", changed "
          + a.changes().changed();
    }
    return "refused: " + ((Refused) outcome).reason();
  }

  /** The last refused reload: when, and why (one line, secrets scrubbed). */
  public record Failure(Instant at, String reason) {}

  private final Source source;
  private final Scheduler scheduler;
  private final Function<DaemonConfig, List<JobDefinition>> definitions;
  private final Listener listener;
  private final Clock clock;
  private final boolean notifierRunning;
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile DaemonConfig current;
  private volatile Failure lastFailure;
  private volatile Instant lastApplied;

  /**
   * @param started the configuration the daemon started with
   * @param definitions makes the scheduler's jobs (runners included) from a configuration
   * @param notifierRunning whether the daemon started a notifier (some job had {@code notify})
   */
  public ConfigReload(
      DaemonConfig started,
      Source source,
      Scheduler scheduler,
      Function<DaemonConfig, List<JobDefinition>> definitions,
      Listener listener,
      Clock clock,
      boolean notifierRunning) {
    this.current = started;
    this.source = source;
    this.scheduler = scheduler;
    this.definitions = definitions;
    this.listener = listener;
    this.clock = clock;
    this.notifierRunning = notifierRunning;
  }

  /** The configuration in force: the one started with, or the last one applied. */
  public DaemonConfig current() {
    return current;
  }

  public Optional<Failure> lastFailure() {
    return Optional.ofNullable(lastFailure);
  }

  public Optional<Instant> lastApplied() {
    return Optional.ofNullable(lastApplied);
  }

  public long appliedCount() {
    return applied.get();
  }

  public long failedCount() {
    return failed.get();
  }

  /** Reads the file again and applies it, or changes nothing and says why. */
  public synchronized Outcome reload() {
    DaemonConfig before = current;
    PreparedConfig prepared;
    try {
      prepared = source.load();
    } catch (ConfigException e) {
      // every error of the file, as validate prints them, on one line
      return refuse(400, String.join(" | ", e.all().stream().map(Exception::getMessage).toList()));
    }
    DaemonConfig next = prepared.config();
    Optional<String> restart = RestartNeeded.reason(before, next, notifierRunning);
    if (restart.isPresent()) {
      return refuse(422, next.file() + ": " + restart.get());
    }
    List<JobDefinition> jobs;
    try {
      jobs = definitions.apply(next);
    } catch (RuntimeException e) {
      return refuse(400, next.file() + ": jobs: " + e.getMessage());
    }
    Set<String> changed = new HashSet<>();
    for (JobConfig job : next.jobs()) {
      before
          .job(job.name())
          .filter(old -> !old.equals(job))
          .ifPresent(old -> changed.add(old.name()));
    }
    listener.applying(next);
    JobChanges done;
    try {
      done = scheduler.replaceJobs(jobs, changed);
    } catch (IllegalStateException e) {
      return refuse(503, next.file() + ": not reloaded: the daemon is stopping");
    }
    current = next;
    lastApplied = clock.instant();
    applied.incrementAndGet();
    listener.applied();
    log.info(
        "config reloaded from {}: added {}, removed {}, changed {}",
        next.file(),
        done.added(),
        done.removed(),
        done.changed());
    return new Applied(next.file(), done);
  }

  private Refused refuse(int status, String message) {
    String reason = Redaction.scrub(message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip());
    lastFailure = new Failure(clock.instant(), reason);
    failed.incrementAndGet();
    listener.failed();
    log.error("config reload refused, nothing changed: {}", reason);
    return new Refused(status, reason);
  }
}
