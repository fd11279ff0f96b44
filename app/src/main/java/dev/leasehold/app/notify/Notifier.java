package dev.leasehold.app.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.scheduler.Notices;
import dev.leasehold.core.store.Redaction;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's notifications ({@code notify:}): which event a firing's last history row makes, and its
 * delivery. Which replica delivers, and when, is the scheduler's part ({@code NoticeDesk}): the
 * replica that wrote the row at once, another one when that one died before it could mark the event
 * sent.
 *
 * <p>What is sent: {@code failed} for a run that did not succeed ({@code failed}, {@code
 * timed-out}, {@code lease-lost}), {@code missed} for a firing no replica ran ({@code missed},
 * {@code group-full}), {@code recovered} for a success whose previous firing's last row in the
 * history (of any replica) did not succeed, {@code succeeded} for any success, each only when the
 * job's {@code on} lists it. A row that a retry of its firing follows is never asked about.
 *
 * <p>A notifier that fails (non-zero exit, non-2xx answer, no answer within {@link #TIMEOUT}) is
 * tried {@value #ATTEMPTS} times in all, {@link #RETRY_PAUSES} apart, each failure logged; then the
 * event is dropped with an error line. The event is scrubbed of secrets before it leaves.
 */
public final class Notifier implements Notices {
  private static final Logger log = LoggerFactory.getLogger(Notifier.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static final int ATTEMPTS = 3;
  static final List<Duration> RETRY_PAUSES = List.of(Duration.ofSeconds(2), Duration.ofSeconds(10));
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private volatile Map<String, NotifyConfig> byJob;
  private final ExecutionLog history;
  private final HttpClient http;
  private final List<Duration> pauses;

  /**
   * @param byJob each job's notifier; jobs without one are not in the map
   * @param history read for {@code recovered}: the row before a success
   */
  public Notifier(Map<String, NotifyConfig> byJob, ExecutionLog history, HttpClient http) {
    this(byJob, history, http, RETRY_PAUSES);
  }

  Notifier(
      Map<String, NotifyConfig> byJob,
      ExecutionLog history,
      HttpClient http,
      List<Duration> pauses) {
    this.byJob = Map.copyOf(byJob);
    this.history = history;
    this.http = http;
    this.pauses = List.copyOf(pauses);
  }

  /** A reload's notifiers, for rows sent from now on; jobs without one are not in it. */
  public void jobs(Map<String, NotifyConfig> byJob) {
    this.byJob = Map.copyOf(byJob);
  }

  @Override
  public boolean notifies(String job) {
    return byJob.containsKey(job);
  }

  @Override
  public Optional<String> event(ExecutionRecord record) {
    NotifyConfig config = byJob.get(record.job());
    if (config == null || record.outcome() == Outcome.SKIPPED) {
      return Optional.empty();
    }
    return event(config, record);
  }

  /**
   * Sends {@code event} about {@code record}, up to {@value #ATTEMPTS} times; returns when it was
   * sent or given up.
   */
  @Override
  public void deliver(String event, ExecutionRecord record) {
    NotifyConfig config = byJob.get(record.job());
    if (config == null) {
      return; // removed by a reload meanwhile
    }
    String json = Redaction.scrub(eventJson(event, record));
    for (int attempt = 1; ; attempt++) {
      Optional<String> problem = send(config.action(), json, record);
      if (problem.isEmpty()) {
        log.info(
            "notification sent job={} firing={} event={}", record.job(), record.fireTime(), event);
        return;
      }
      if (attempt >= ATTEMPTS) {
        log.error(
            "notification lost job={} firing={} event={}: {} (tried {} times)",
            record.job(),
            record.fireTime(),
            event,
            problem.get(),
            attempt);
        return;
      }
      log.warn(
          "notification failed job={} firing={} event={}: {}; trying again",
          record.job(),
          record.fireTime(),
          event,
          problem.get());
      if (!pause(pauses.get(Math.min(attempt - 1, pauses.size() - 1)))) {
        return;
      }
    }
  }

  /** The event this row makes, if its job's notifier wants it. */
  private Optional<String> event(NotifyConfig config, ExecutionRecord record) {
    String event;
    if (record.outcome() == Outcome.MISSED || record.outcome() == Outcome.GROUP_FULL) {
      event = "missed";
    } else if (record.outcome() != Outcome.SUCCEEDED) {
      event = "failed";
    } else if (config.on().contains("recovered") && previousFailed(record)) {
      event = "recovered";
    } else {
      event = "succeeded";
    }
    return config.on().contains(event) ? Optional.of(event) : Optional.empty();
  }

  /**
   * Whether the last row of the job's previous firing (in the shared history) was not a success.
   * Earlier attempts of this same firing are passed over: their failures were retried, not
   * notified, so a retry that succeeds is no recovery.
   */
  private boolean previousFailed(ExecutionRecord record) {
    try {
      List<ExecutionRecord> recent = history.recent(record.job(), 20);
      for (int i = 0; i < recent.size() - 1; i++) {
        ExecutionRecord r = recent.get(i);
        if (r.fence() == record.fence() && r.fireTime().equals(record.fireTime())) {
          for (int j = i + 1; j < recent.size(); j++) {
            ExecutionRecord before = recent.get(j);
            if (record.trigger() == TriggerKind.SCHEDULED
                && before.trigger() == TriggerKind.SCHEDULED
                && before.fireTime().equals(record.fireTime())) {
              continue;
            }
            return before.outcome() != Outcome.SUCCEEDED
                && before.outcome() != Outcome.SKIPPED
                && before.outcome() != Outcome.RESET;
          }
          return false;
        }
      }
      return false;
    } catch (RuntimeException e) {
      log.warn(
          "cannot tell whether job={} recovered: the history could not be read: {}",
          record.job(),
          e.getMessage());
      return false;
    }
  }

  static String eventJson(String event, ExecutionRecord r) {
    ObjectNode json = JSON.createObjectNode();
    json.put("event", event);
    json.put("id", r.job() + "@" + FireTimes.format(r.fireTime()) + "#" + r.fence());
    json.put("job", r.job());
    json.put("firing", FireTimes.format(r.fireTime()));
    json.put("node", r.node());
    json.put("fence", r.fence());
    json.put("outcome", r.outcome().label());
    json.put("attempt", r.attempt());
    json.put("trigger", r.trigger().label());
    json.put("started_at", FireTimes.format(r.startedAt()));
    json.put("finished_at", FireTimes.format(r.finishedAt()));
    json.put("duration_ms", r.duration().toMillis());
    if (r.exitCode() == null) {
      json.putNull("exit_code");
    } else {
      json.put("exit_code", r.exitCode());
    }
    json.put("detail", r.detail());
    json.put("output", r.output());
    return json.toString();
  }

  /** Sends once; the problem when it did not go through. */
  private Optional<String> send(JobAction action, String json, ExecutionRecord record) {
    try {
      if (action instanceof JobAction.Command command) {
        return command(command, json);
      }
      if (action instanceof JobAction.Http target) {
        return post(target, json, record);
      }
      return Optional.of("unsupported notifier " + action.getClass().getSimpleName());
    } catch (IOException e) {
      return Optional.of(e.getClass().getSimpleName() + ": " + Redaction.scrub(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }

  private Optional<String> command(JobAction.Command command, String json)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command.argv()).redirectErrorStream(true);
    if (command.workdir() != null) {
      builder.directory(command.workdir().toFile());
    }
    dev.leasehold.app.runner.InheritedEnvironment.withholdSecrets(builder.environment());
    builder.environment().putAll(command.env());
    builder.environment().put("LEASEHOLD_EVENT", json);
    Process process = builder.start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(json.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // the notifier did not read its stdin: it still has the event in LEASEHOLD_EVENT
    }
    Thread drain = drain(process.getInputStream());
    if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      return Optional.of("no exit within " + TIMEOUT.toSeconds() + " s");
    }
    drain.join(2000);
    int code = process.exitValue();
    return code == 0 ? Optional.empty() : Optional.of("exit code " + code);
  }

  /** The notifier's output goes to the log at debug level, so its pipe never fills. */
  private static Thread drain(InputStream out) {
    Thread t =
        new Thread(
            () -> {
              try (var reader =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(out, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                  log.debug("notifier: {}", Redaction.scrub(line));
                }
              } catch (IOException e) {
                // closed
              }
            },
            "leasehold-notify-output");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private Optional<String> post(JobAction.Http target, String json, ExecutionRecord record)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpJobRunner.newRequest(target.url())
            .timeout(target.timeout())
            .method(target.method(), HttpRequest.BodyPublishers.ofString(json));
    target.headers().forEach(request::setHeader);
    if (target.headers().keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
      request.header("Content-Type", "application/json");
    }
    request
        .setHeader("X-Leasehold-Job", record.job())
        .setHeader("X-Leasehold-Fire-Time", FireTimes.format(record.fireTime()))
        .setHeader("X-Leasehold-Fence", Long.toString(record.fence()));
    HttpResponse<Void> response =
        http.send(request.build(), HttpResponse.BodyHandlers.discarding());
    int status = response.statusCode();
    return status >= 200 && status < 300 ? Optional.empty() : Optional.of("answered " + status);
  }

  private static boolean pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
