package dev.leasehold.app.admin;

import dev.leasehold.app.report.Json;
import dev.leasehold.core.store.Redaction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One answer of the admin endpoint: status, content type, body and any headers of its own (the
 * server adds the security headers every answer carries). Answers made from data are scrubbed of
 * secrets as they are made: {@link #json} through {@link Json} (each string value, before JSON
 * escapes it), {@link #of} and {@link #text} as a whole; the page's static files hold no data.
 */
record AdminResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
  static final String JSON = "application/json";
  static final String TEXT = "text/plain; charset=utf-8";

  static AdminResponse json(int status, Object value) {
    return new AdminResponse(
        status, JSON, (Json.write(value) + "\n").getBytes(StandardCharsets.UTF_8), Map.of());
  }

  static AdminResponse json(Object value) {
    return json(200, value);
  }

  static AdminResponse text(int status, String text) {
    return of(status, TEXT, text);
  }

  /** A text answer, scrubbed ({@link Redaction#scrub}) as it leaves the process. */
  static AdminResponse of(int status, String contentType, String body) {
    return new AdminResponse(
        status, contentType, Redaction.scrub(body).getBytes(StandardCharsets.UTF_8), Map.of());
  }

  /**
   * The header that carries a handler's line for the audit trail to the server, which takes it off
   * before the answer leaves ({@link #audited}).
   */
  static final String AUDIT_DETAIL = "X-Leasehold-Audit-Detail";

  /** This answer with {@code detail} for the audit trail's entry of the request. */
  AdminResponse audited(String detail) {
    return with(AUDIT_DETAIL, detail);
  }

  /** This answer without the audit line, as it leaves the process. */
  AdminResponse withoutAuditDetail() {
    if (!headers.containsKey(AUDIT_DETAIL)) {
      return this;
    }
    Map<String, String> fewer = new LinkedHashMap<>(headers);
    fewer.remove(AUDIT_DETAIL);
    return new AdminResponse(status, contentType, body, fewer);
  }

  /** This answer with one more header. */
  AdminResponse with(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new AdminResponse(status, contentType, body, more);
  }
}
