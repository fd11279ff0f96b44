package dev.leasehold.app.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.app.config.JobAction;
import dev.leasehold.app.config.NotifyChannel;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.app.runner.HttpJobRunner;
import dev.leasehold.core.check.CheckEvent;
import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.JobContext;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
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
 * job's {@code on} lists it; none for {@code skipped} and {@code replaced}. A row that a retry of
 * its firing follows is never asked about.
 *
 * <p>Each of the notifier's channels ({@link NotifyChannel}) gets the event once: a command or an
 * HTTP request the event as JSON (or an HTTP body template), ntfy, Telegram and e-mail a short
 * message ({@link Messages}). A channel that fails (non-zero exit, non-2xx answer, an SMTP error,
 * no answer within {@link #TIMEOUT}) is tried {@value #ATTEMPTS} times in all, {@link
 * #RETRY_PAUSES} apart, each failure logged; then the event is dropped for it with an error line.
 * Everything sent and logged is scrubbed of secrets (the bot token travels in the URL path only). A
 * {@code started} event ({@link #started}) is sent by the replica that runs the job, not by the
 * desk.
 */
public final class Notifier implements Notices {
  private static final Logger log = LoggerFactory.getLogger(Notifier.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static final int ATTEMPTS = 3;
  static final List<Duration> RETRY_PAUSES = List.of(Duration.ofSeconds(2), Duration.ofSeconds(10));
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  static final String STARTED = "started";

  /** Started events waiting for the sender thread, at most. */
  static final int MAX_WAITING_STARTS = 1000;

  private volatile Map<String, NotifyConfig> byJob;
  private final ExecutorService starts =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new LinkedBlockingQueue<>(MAX_WAITING_STARTS),
          r -> {
            Thread t = new Thread(r, "leasehold-notify-started");
            t.setDaemon(true);
            return t;
          });
  private final ExecutionLog history;
  private final HttpClient http;
  private final List<Duration> pauses;
  private final Clock clock;

  /**
   * @param byJob each job's notifier; jobs without one are not in the map
   * @param history read for {@code recovered}: the row before a success
   */
  public Notifier(
      Map<String, NotifyConfig> byJob, ExecutionLog history, HttpClient http, Clock clock) {
    this(byJob, history, http, RETRY_PAUSES, clock);
  }

  Notifier(
      Map<String, NotifyConfig> byJob,
      ExecutionLog history,
      HttpClient http,
      List<Duration> pauses,
      Clock clock) {
    this.byJob = Map.copyOf(byJob);
    this.history = history;
    this.http = http;
    this.pauses = List.copyOf(pauses);
    this.clock = clock;
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
    if (config == null
        || record.outcome() == Outcome.SKIPPED
        || record.outcome() == Outcome.REPLACED) {
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
    for (NotifyChannel channel : config.channels()) {
      deliver(config, channel, event, json, record);
    }
  }

  /**
   * Sends a heartbeat check's event to the check's notifier (this notifier's map is keyed by check
   * names, see {@link CheckNotifier}) when its {@code on} lists the event; returns when it was sent
   * or given up. The event is told as a job's: the check's name as {@code job}, the deadline or the
   * ping's time as {@code firing}, {@code check: true} and the event's own identity as {@code id}.
   */
  void deliverCheck(CheckEvent event, String node) {
    NotifyConfig config = byJob.get(event.check());
    if (config == null || !config.on().contains(event.kind())) {
      log.debug("check={} event={}: not sent (no notifier wants it)", event.check(), event.kind());
      return;
    }
    ExecutionRecord record =
        new ExecutionRecord(
            event.check(),
            event.at(),
            node,
            0,
            TriggerKind.SCHEDULED,
            event.lastPing() == null ? event.at() : event.lastPing(),
            event.at(),
            switch (event.kind()) {
              case CheckEvent.MISSED -> Outcome.MISSED;
              case CheckEvent.FAILED -> Outcome.FAILED;
              default -> Outcome.SUCCEEDED;
            },
            null,
            checkDetail(event),
            null,
            1);
    ObjectNode json = (ObjectNode) readTree(eventJson(event.kind(), record));
    json.put("id", "check:" + event.id());
    json.put("check", true);
    String text = Redaction.scrub(json.toString());
    for (NotifyChannel channel : config.channels()) {
      deliver(config, channel, event.kind(), text, record);
    }
  }

  private static String checkDetail(CheckEvent event) {
    return switch (event.kind()) {
      case CheckEvent.MISSED -> "no ping since " + FireTimes.format(event.lastPing());
      case CheckEvent.FAILED -> "the job reported a failure";
      default -> "pinged again";
    };
  }

  private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A run of {@code context}'s job starts on this replica: when the job's {@code on} lists {@code
   * started}, the event is handed to a sender thread (the run does not wait for it). Sent by the
   * replica that runs the job, once per run; not handed over if this replica dies before sending.
   */
  public void started(JobContext context) {
    NotifyConfig config = byJob.get(context.job());
    if (config == null || !config.on().contains(STARTED)) {
      return;
    }
    Instant now = clock.instant();
    ExecutionRecord run =
        new ExecutionRecord(
            context.job(),
            context.firing(),
            context.node(),
            context.fence(),
            context.trigger(),
            now,
            now,
            Outcome.SUCCEEDED, // not shown: a started event has no outcome yet
            null,
            null,
            null,
            context.attempt());
    try {
      starts.execute(() -> deliver(STARTED, run));
    } catch (RejectedExecutionException e) {
      log.warn(
          "notification dropped job={} firing={} event=started: {} started events already wait",
          context.job(),
          context.firing(),
          MAX_WAITING_STARTS);
    }
  }

  /** Sends to one channel, up to {@value #ATTEMPTS} times. */
  private void deliver(
      NotifyConfig config,
      NotifyChannel channel,
      String event,
      String json,
      ExecutionRecord record) {
    String to = kind(channel);
    for (int attempt = 1; ; attempt++) {
      Optional<String> problem = send(config, channel, event, json, record);
      if (problem.isEmpty()) {
        log.info(
            "notification sent job={} firing={} event={} to={}",
            record.job(),
            record.fireTime(),
            event,
            to);
        return;
      }
      if (attempt >= ATTEMPTS) {
        log.error(
            "notification lost job={} firing={} event={} to={}: {} (tried {} times)",
            record.job(),
            record.fireTime(),
            event,
            to,
            problem.get(),
            attempt);
        return;
      }
      log.warn(
          "notification failed job={} firing={} event={} to={}: {}; trying again",
          record.job(),
          record.fireTime(),
          event,
          to,
          problem.get());
      if (!pause(pauses.get(Math.min(attempt - 1, pauses.size() - 1)))) {
        return;
      }
    }
  }

  private static String kind(NotifyChannel channel) {
    if (channel instanceof NotifyChannel.Command) {
      return "command";
    }
    if (channel instanceof NotifyChannel.Http) {
      return "http";
    }
    if (channel instanceof NotifyChannel.Ntfy) {
      return "ntfy";
    }
    return channel instanceof NotifyChannel.Telegram ? "telegram" : "email";
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
                && before.outcome() != Outcome.REPLACED
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
    if (event.equals(STARTED)) {
      return startedJson(r);
    }
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

  /** A run that starts: no outcome, end, exit code, detail or output yet. */
  private static String startedJson(ExecutionRecord r) {
    ObjectNode json = JSON.createObjectNode();
    json.put("event", STARTED);
    json.put("id", r.job() + "@" + FireTimes.format(r.fireTime()) + "#" + r.fence() + ":started");
    json.put("job", r.job());
    json.put("firing", FireTimes.format(r.fireTime()));
    json.put("node", r.node());
    json.put("fence", r.fence());
    json.put("outcome", "running");
    json.put("attempt", r.attempt());
    json.put("trigger", r.trigger().label());
    json.put("started_at", FireTimes.format(r.startedAt()));
    return json.toString();
  }

  /** Sends once; the problem when it did not go through (scrubbed of secrets). */
  private Optional<String> send(
      NotifyConfig config,
      NotifyChannel channel,
      String event,
      String json,
      ExecutionRecord record) {
    try {
      if (channel instanceof NotifyChannel.Command command) {
        return command(command.command(), json);
      }
      if (channel instanceof NotifyChannel.Http target) {
        return post(target, json, event, record);
      }
      String message = Messages.message(config, event, record);
      if (channel instanceof NotifyChannel.Ntfy ntfy) {
        return ntfy(ntfy, message, event, record);
      }
      if (channel instanceof NotifyChannel.Telegram telegram) {
        return telegram(telegram, message);
      }
      if (channel instanceof NotifyChannel.Email email) {
        SmtpMail.send(
            email,
            "Leasehold: " + Messages.title(event, record),
            message,
            clock.instant(),
            TIMEOUT);
        return Optional.empty();
      }
      return Optional.of("unsupported notifier " + channel.getClass().getSimpleName());
    } catch (IOException e) {
      return Optional.of(e.getClass().getSimpleName() + ": " + Redaction.scrub(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }

  private Optional<String> ntfy(
      NotifyChannel.Ntfy ntfy, String message, String event, ExecutionRecord record)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpJobRunner.newRequest(ntfy.url())
            .timeout(TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(message))
            .header("Content-Type", "text/plain; charset=utf-8")
            .header("Title", ascii(Messages.title(event, record)));
    if (ntfy.priority() != null) {
      request.header("Priority", ntfy.priority());
    }
    if (!ntfy.tags().isEmpty()) {
      request.header("Tags", String.join(",", ntfy.tags()));
    }
    if (ntfy.token() != null) {
      request.header("Authorization", "Bearer " + ntfy.token());
    }
    return answered(http.send(request.build(), HttpResponse.BodyHandlers.discarding()));
  }

  private Optional<String> telegram(NotifyChannel.Telegram telegram, String message)
      throws IOException, InterruptedException {
    String base = telegram.apiUrl().toString().replaceAll("/+$", "");
    ObjectNode body = JSON.createObjectNode();
    body.put("chat_id", telegram.chatId());
    body.put("text", message);
    HttpRequest request =
        HttpJobRunner.newRequest(
                java.net.URI.create(base + "/bot" + telegram.botToken() + "/sendMessage"))
            .timeout(TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .header("Content-Type", "application/json")
            .build();
    // the URL holds the token: an error says the status only, never the request
    return answered(http.send(request, HttpResponse.BodyHandlers.discarding()));
  }

  private static Optional<String> answered(HttpResponse<?> response) {
    int status = response.statusCode();
    return status >= 200 && status < 300 ? Optional.empty() : Optional.of("answered " + status);
  }

  /** A header value: non-ASCII characters become {@code ?} (header values are ASCII). */
  private static String ascii(String s) {
    return s.replaceAll("[^\\x20-\\x7e]", "?");
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

  private Optional<String> post(
      NotifyChannel.Http channel, String json, String event, ExecutionRecord record)
      throws IOException, InterruptedException {
    JobAction.Http target = channel.request();
    String contentType =
        target.headers().entrySet().stream()
            .filter(h -> h.getKey().equalsIgnoreCase("Content-Type"))
            .map(Map.Entry::getValue)
            .findFirst()
            .orElse("application/json");
    String body =
        channel.body() == null
            ? json
            : Messages.body(
                channel.body(),
                contentType.toLowerCase(java.util.Locale.ROOT).contains("json"),
                event,
                record);
    HttpRequest.Builder request =
        HttpJobRunner.newRequest(target.url())
            .timeout(target.timeout())
            .method(target.method(), HttpRequest.BodyPublishers.ofString(body));
    target.headers().forEach(request::setHeader);
    if (target.headers().keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
      request.header("Content-Type", "application/json");
    }
    request
        .setHeader("X-Leasehold-Job", record.job())
        .setHeader("X-Leasehold-Fire-Time", FireTimes.format(record.fireTime()))
        .setHeader("X-Leasehold-Fence", Long.toString(record.fence()));
    return answered(http.send(request.build(), HttpResponse.BodyHandlers.discarding()));
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
