package dev.leasehold.app.admin;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One request to the admin endpoint, as the handlers see it, whatever server read it.
 *
 * @param method {@code GET}, {@code POST}, ...
 * @param path the decoded path, without the query
 * @param query the decoded query parameters (the first value of each)
 * @param headers the first value of a header by its name in any case, or {@code null}
 * @param client the address the connection came from
 */
record AdminRequest(
    String method,
    String path,
    Map<String, String> query,
    Function<String, String> headers,
    InetAddress client) {

  Optional<String> header(String name) {
    return Optional.ofNullable(headers.apply(name));
  }

  /** The query parameters of {@code rawQuery}, decoded; the first value of a repeated name. */
  static Map<String, String> parseQuery(String rawQuery) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        out.putIfAbsent(
            URLDecoder.decode(key, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // malformed %-encoding: the parameter is ignored
      }
    }
    return out;
  }
}
