package dev.leasehold.app.notify;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.leasehold.app.config.MessageTemplate;
import dev.leasehold.app.config.NotifyConfig;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.schedule.Durations;
import dev.leasehold.core.store.Redaction;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The text of a notification: a {@code message:} template's values, and the default message. Every
 * text leaves scrubbed of secrets.
 */
final class Messages {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z");

  private Messages() {}

  /** The value of each {@link MessageTemplate#NAMES} name for {@code event} about {@code r}. */
  static Map<String, String> values(String event, ExecutionRecord r) {
    Map<String, String> v = new HashMap<>();
    v.put("job", r.job());
    v.put("event", event);
    v.put("firing", FireTimes.format(r.fireTime()));
    v.put("node", r.node());
    v.put("fence", Long.toString(r.fence()));
    boolean started = event.equals(Notifier.STARTED);
    v.put("outcome", started ? "running" : r.outcome().label());
    v.put("attempt", Integer.toString(r.attempt()));
    v.put("exit_code", r.exitCode() == null ? "" : Integer.toString(r.exitCode()));
    v.put("detail", r.detail() == null ? "" : r.detail());
    v.put("output", r.output() == null ? "" : r.output());
    v.put("duration", started ? "" : Durations.format(r.duration()));
    return v;
  }

  /** The message for ntfy, Telegram and e-mail: the template, or the default one. */
  static String message(NotifyConfig config, String event, ExecutionRecord r) {
    String text =
        config.message() != null
            ? config.message().render(values(event, r), UnaryOperator.identity())
            : defaultMessage(config, event, r);
    return Redaction.scrub(text);
  }

  /** An HTTP body from its template, values JSON-escaped when the body is JSON. */
  static String body(MessageTemplate body, boolean json, String event, ExecutionRecord r) {
    return Redaction.scrub(
        body.render(values(event, r), json ? Messages::jsonEscaped : UnaryOperator.identity()));
  }

  /** The job and event, for a title or a subject. */
  static String title(String event, ExecutionRecord r) {
    return r.job() + " " + event;
  }

  /**
   * Names the job, the event and what the run said, the firing in the job's zone, the node, and the
   * last line of the output.
   */
  static String defaultMessage(NotifyConfig config, String event, ExecutionRecord r) {
    StringBuilder text = new StringBuilder();
    text.append(r.job()).append(' ').append(event);
    if (r.detail() != null && !r.detail().isBlank()) {
      text.append(": ").append(r.detail());
    } else if (!event.equals(Notifier.STARTED) && !event.equals(r.outcome().label())) {
      text.append(" (").append(r.outcome().label()).append(')');
    }
    text.append("\nfiring ")
        .append(LOCAL.format(r.fireTime().atZone(config.zone())))
        .append(" on ")
        .append(r.node());
    String last = lastLine(r.output());
    if (last != null) {
      text.append('\n').append(last);
    }
    return text.toString();
  }

  private static String lastLine(String output) {
    if (output == null) {
      return null;
    }
    String[] lines = output.strip().split("\n");
    for (int i = lines.length - 1; i >= 0; i--) {
      if (!lines[i].isBlank()) {
        return lines[i].strip();
      }
    }
    return null;
  }

  static String jsonEscaped(String value) {
    return new String(JsonStringEncoder.getInstance().quoteAsString(value));
  }
}
