package dev.leasehold.app.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.app.runner.FireTimes;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.store.Redaction;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of the audit trail: when, which action on which job, its result, a short detail, and
 * who ({@link Actor}). Stored as a small JSON body in the journal stream {@value
 * AuditTrail#STREAM}; every text in it is scrubbed of the configured secrets ({@link
 * Redaction#scrub}) before it is stored, and a token appears only as its kind, never its value.
 *
 * @param at when the action ended, on the recorder's clock
 * @param action {@code pause}, {@code resume}, {@code trigger}, {@code reload}, {@code reset},
 *     {@code forget} or {@code backfill}
 * @param job the job, or {@code null} for an action on no single job ({@code reload})
 * @param result {@link #OK}, {@link #REFUSED} (nothing was done: a bad token, an unknown job, the
 *     read token on a change, a bad argument) or {@link #FAILED} (tried, and it failed)
 * @param detail what was done or why not, one line, or {@code null}
 * @param who who did it
 */
public record AuditEntry(
    Instant at, String action, String job, String result, String detail, Actor who) {
  public static final String PAUSE = "pause";
  public static final String RESUME = "resume";
  public static final String TRIGGER = "trigger";
  public static final String RELOAD = "reload";
  public static final String RESET = "reset";
  public static final String FORGET = "forget";
  public static final String BACKFILL = "backfill";

  public static final String OK = "ok";
  public static final String REFUSED = "refused";
  public static final String FAILED = "failed";

  /** The columns of {@code leasehold audit} without {@code --json}. */
  public static final List<String> TABLE_COLUMNS =
      List.of("time", "action", "job", "result", "by", "detail");

  /** Longest detail kept. */
  static final int MAX_DETAIL = 500;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  public AuditEntry {
    if (at == null || action == null || result == null || who == null) {
      throw new IllegalArgumentException("at, action, result and who are required");
    }
    detail = detail == null ? null : cut(oneLine(Redaction.scrub(detail)), MAX_DETAIL);
    job = job == null ? null : cut(job, Actor.MAX_FIELD);
  }

  /** The body stored in the journal: compact JSON, the time kept by the journal entry itself. */
  public String body() {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("action", action);
    node.put("job", job);
    node.put("result", result);
    node.put("detail", detail);
    node.put("via", who.via());
    node.put("user", scrub(who.user()));
    node.put("host", scrub(who.host()));
    node.put("node", scrub(who.node()));
    node.put("token", who.token());
    node.put("client", who.client());
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write an audit entry", e);
    }
  }

  /** The entry a journal entry of the trail holds; empty for a body that is not one. */
  public static Optional<AuditEntry> parse(JournalEntry entry) {
    try {
      JsonNode node = MAPPER.readTree(entry.body());
      if (node == null || !node.isObject() || text(node, "action") == null) {
        return Optional.empty();
      }
      Actor who =
          new Actor(
              Optional.ofNullable(text(node, "via")).orElse("?"),
              text(node, "user"),
              text(node, "host"),
              text(node, "node"),
              knownToken(text(node, "token")),
              text(node, "client"));
      return Optional.of(
          new AuditEntry(
              entry.at(),
              text(node, "action"),
              text(node, "job"),
              Optional.ofNullable(text(node, "result")).orElse("?"),
              text(node, "detail"),
              who));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * The entry as {@code audit --json} and {@code GET /audit} show it: {@code time}, {@code action},
   * {@code job}, {@code result}, {@code detail}, {@code via}, {@code user}, {@code host}, {@code
   * node}, {@code token}, {@code client}, and {@code by}, who in one line.
   */
  public Map<String, Object> row() {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("time", FireTimes.format(at));
    row.put("action", action);
    row.put("job", job);
    row.put("result", result);
    row.put("detail", detail);
    row.put("via", who.via());
    row.put("user", who.user());
    row.put("host", who.host());
    row.put("node", who.node());
    row.put("token", who.token());
    row.put("client", who.client());
    row.put("by", who.describe());
    return row;
  }

  private static String knownToken(String token) {
    if (token == null) {
      return null;
    }
    return switch (token) {
      case Actor.ADMIN, Actor.READ, Actor.WRONG, Actor.NONE -> token;
      default -> Actor.NONE;
    };
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static String scrub(String text) {
    return text == null ? null : Redaction.scrub(text);
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }

  private static String cut(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }
}
