package dev.leasehold.store.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.ConnectFailures;
import dev.leasehold.core.store.Redaction;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's v3 API through its gRPC-JSON gateway ({@code POST /v3/kv/txn}, {@code /v3/lease/grant}
 * ...), served by every etcd member on its client port, over the JDK HTTP client.
 *
 * <p>Endpoints: calls go to one member; a member that refuses the connection (down, restarting) is
 * skipped and the next one is tried, which is safe because the request never reached it. Any other
 * failure (a timeout, a broken reply) may hide a request that was applied, so it is reported as a
 * {@link LeaseStoreException} (fail closed) and the next call starts on the next member. Every
 * member forwards writes to the leader and serves linearizable reads, so the member choice never
 * changes an answer.
 *
 * <p>Authentication: with a user name, a token from {@code /v3/auth/authenticate} is sent in the
 * {@code Authorization} header and fetched again when etcd says it expired.
 */
final class EtcdClient {
  private static final Logger log = LoggerFactory.getLogger(EtcdClient.class);
  static final ObjectMapper JSON = new ObjectMapper();
  private static final String AUTHENTICATE = "/v3/auth/authenticate";

  private final List<URI> endpoints;
  private final String username;
  private final String password;
  private final Duration timeout;
  private final HttpClient http;
  private final AtomicInteger current = new AtomicInteger();
  private volatile String authToken;
  private final ExecutorService background =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "leasehold-etcd-background");
            t.setDaemon(true);
            return t;
          });

  EtcdClient(List<URI> endpoints, String username, String password, Duration timeout) {
    this.endpoints = List.copyOf(endpoints);
    this.username = username;
    this.password = password;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  static ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** One call: {@code path} is e.g. {@code /v3/kv/txn}. */
  JsonNode call(String path, ObjectNode body) {
    if (username != null && authToken == null) {
      authenticate();
    }
    try {
      return send(path, body, true);
    } catch (AuthExpired e) {
      authenticate();
      return send(path, body, true);
    }
  }

  /** A call whose failure is only logged (e.g. revoking a lease nobody uses any more). */
  void callQuietly(String path, ObjectNode body) {
    try {
      call(path, body);
    } catch (RuntimeException e) {
      log.debug("etcd {} failed: {}", path, e.getMessage());
    }
  }

  /** A call nobody waits for (revoking an etcd lease nobody uses any more). */
  void inBackground(String path, ObjectNode body) {
    try {
      background.execute(() -> callQuietly(path, body));
    } catch (RejectedExecutionException e) {
      log.debug("etcd {} not sent: client closed", path);
    }
  }

  /** Grants an etcd lease of {@code seconds}; returns its id. */
  long grant(long seconds) {
    JsonNode granted = call("/v3/lease/grant", object().put("TTL", seconds));
    long id = granted.path("ID").asLong(0);
    if (id == 0) {
      throw new LeaseStoreException("etcd granted no lease: " + granted.path("error").asText(""));
    }
    return id;
  }

  /** Revokes an etcd lease nobody uses any more, not waiting for it. */
  void revokeLater(long leaseId) {
    inBackground("/v3/lease/revoke", object().put("ID", Long.toString(leaseId)));
  }

  /** Sends what is queued in the background (briefly), then stops. */
  void close() {
    background.shutdown();
    try {
      background.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void authenticate() {
    ObjectNode body = object().put("name", username).put("password", password);
    JsonNode answer = send(AUTHENTICATE, body, false);
    String token = answer.path("token").asText(null);
    if (token == null) {
      throw new LeaseStoreException("etcd authentication of user " + username + " gave no token");
    }
    authToken = token;
  }

  private JsonNode send(String path, ObjectNode body, boolean withToken) {
    int start = current.get();
    IOException refused = null;
    List<String> reasons = new ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      int index = (start + i) % endpoints.size();
      URI endpoint = endpoints.get(index);
      HttpRequest.Builder request =
          HttpRequest.newBuilder(endpoint.resolve(path))
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
      String token = authToken;
      if (withToken && token != null) {
        request.header("Authorization", token);
      }
      HttpResponse<String> response;
      try {
        response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      } catch (ConnectException | HttpConnectTimeoutException e) {
        // never reached the member: another one may take the same request safely
        refused = e;
        String reason = ConnectFailures.reason(e, timeout);
        reasons.add(
            ConnectFailures.hostPort(endpoint.getHost(), endpoint.getPort())
                + ": "
                + (reason == null ? "connection failed" : reason));
        current.compareAndSet(index, (index + 1) % endpoints.size());
        log.debug("etcd member {} refused the connection", redacted(endpoint));
        continue;
      } catch (IOException e) {
        current.compareAndSet(index, (index + 1) % endpoints.size());
        throw new LeaseStoreException(
            "etcd " + redacted(endpoint.resolve(path)) + " failed: " + describe(e), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LeaseStoreException("interrupted while calling etcd", e);
      }
      return answer(endpoint, path, response);
    }
    throw new StoreUnreachableException(
        "etcd store: cannot connect to etcd at " + String.join("; ", reasons), refused);
  }

  private JsonNode answer(URI endpoint, String path, HttpResponse<String> response) {
    JsonNode json;
    try {
      json = JSON.readTree(firstObject(response.body()));
    } catch (IOException e) {
      throw new LeaseStoreException(
          "etcd "
              + redacted(endpoint.resolve(path))
              + " answered "
              + response.statusCode()
              + " with no JSON",
          e);
    }
    if (json.has("result")) {
      json = json.get("result"); // a streaming call (lease keep-alive) wraps its first message
    }
    JsonNode error = json.has("error") && json.get("error").isObject() ? json.get("error") : json;
    if (response.statusCode() != 200 || error.has("code") && error.path("code").asInt() != 0) {
      String message = error.path("message").asText(error.path("error").asText("no message"));
      if (message.contains("invalid auth token") || message.contains("token is not found")) {
        throw new AuthExpired();
      }
      if (path.equals(AUTHENTICATE) && message.contains("authentication failed")) {
        // the same plain line as a refused connection: which member, what went wrong
        throw new StoreUnreachableException(
            "etcd store: cannot connect to etcd at "
                + ConnectFailures.hostPort(endpoint.getHost(), endpoint.getPort())
                + ": authentication failed (user "
                + username
                + ")",
            null);
      }
      throw new LeaseStoreException(
          "etcd "
              + redacted(endpoint.resolve(path))
              + " answered "
              + response.statusCode()
              + ": "
              + message);
    }
    return json;
  }

  /** A streaming answer is several JSON objects one per line; the first one is ours. */
  private static String firstObject(String body) {
    int newline = body.indexOf('\n');
    return newline < 0 ? body : body.substring(0, newline);
  }

  private static String describe(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  static String redacted(URI endpoint) {
    return Redaction.redactUrl(endpoint.toString());
  }

  List<URI> endpoints() {
    return endpoints;
  }

  /** etcd refused the token (it expires after a while): authenticate again once. */
  private static final class AuthExpired extends LeaseStoreException {
    private static final long serialVersionUID = 1L;

    AuthExpired() {
      super("etcd refused the auth token");
    }
  }
}
