package dev.leasehold.app.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The admin endpoint's table of routes: a method, a path pattern whose {@code {name}} parts match
 * one path segment, who may call it, and the handler. Adding an endpoint is one line in {@link
 * AdminServer#routes}, e.g. {@code routes.post("/jobs/{name}/pause", Access.CHANGE, r -> ...)}.
 */
final class Routes {
  /** Who may call a route; the server checks it before the handler runs. */
  enum Access {
    /** Anyone who reaches the port ({@code /health} only: probes carry no token). */
    OPEN,
    /** Reading: free on loopback, a token (admin or read) beyond it. */
    READ,
    /**
     * Reading run output ({@code /history}, {@code /jobs/{name}}): a token (admin or read) whenever
     * one is configured, on loopback too; free on loopback only when none is.
     */
    OUTPUT,
    /**
     * Changing state: always the admin token (the read token gets 403), never from another origin.
     */
    CHANGE,
    /**
     * A heartbeat check's ping ({@code /ping/{name}}): the check's own {@code ping-key}, which the
     * handler compares (the admin and read tokens are no ping keys); never from another origin.
     */
    PING
  }

  /** Answers a request; {@code params} holds the path's {@code {name}} parts, decoded. */
  @FunctionalInterface
  interface Handler {
    AdminResponse handle(AdminRequest request, Map<String, String> params);
  }

  /** A route that matched a request, with its path parameters. */
  record Match(Route route, Map<String, String> params) {}

  /**
   * One endpoint.
   *
   * @param action the audit trail's action of a route that changes something ({@code pause}, {@code
   *     resume}, {@code trigger}, {@code reload}), or {@code null}: every request to such a route
   *     is recorded, refused ones too
   */
  record Route(
      String method,
      String pattern,
      Access access,
      String action,
      Handler handler,
      Pattern regex) {}

  private static final Pattern PARAM = Pattern.compile("\\{([a-z]+)}");
  private final List<Route> routes = new ArrayList<>();

  Routes get(String pattern, Access access, Handler handler) {
    return add("GET", pattern, access, null, handler);
  }

  Routes post(String pattern, Access access, Handler handler) {
    return add("POST", pattern, access, null, handler);
  }

  /** A route whose every request is recorded in the audit trail as {@code action}. */
  Routes post(String pattern, Access access, String action, Handler handler) {
    return add("POST", pattern, access, action, handler);
  }

  private Routes add(String method, String pattern, Access access, String action, Handler handler) {
    Matcher m = PARAM.matcher(pattern);
    StringBuilder regex = new StringBuilder();
    int last = 0;
    while (m.find()) {
      regex.append(Pattern.quote(pattern.substring(last, m.start())));
      regex.append("(?<").append(m.group(1)).append(">[^/]+)");
      last = m.end();
    }
    regex.append(Pattern.quote(pattern.substring(last)));
    routes.add(
        new Route(method, pattern, access, action, handler, Pattern.compile(regex.toString())));
    return this;
  }

  /** The route for this method and path. */
  Optional<Match> find(String method, String path) {
    for (Route route : routes) {
      Matcher m = route.regex().matcher(path);
      if (route.method().equals(method) && m.matches()) {
        Map<String, String> params = new LinkedHashMap<>();
        for (Matcher p = PARAM.matcher(route.pattern()); p.find(); ) {
          params.put(p.group(1), m.group(p.group(1)));
        }
        return Optional.of(new Match(route, params));
      }
    }
    return Optional.empty();
  }

  /** The methods some route accepts for this path (for a 405's {@code Allow}). */
  List<String> methods(String path) {
    return routes.stream()
        .filter(r -> r.regex().matcher(path).matches())
        .map(Route::method)
        .distinct()
        .toList();
  }
}
