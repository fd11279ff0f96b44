package dev.leasehold.app.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The status page's static files ({@code src/main/resources/dev/leasehold/app/admin/web/}), read
 * once from the class path. They hold no data: the script fetches it from the JSON API.
 */
final class WebAssets {
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "js", "text/javascript; charset=utf-8");

  private WebAssets() {}

  /** The file {@code web/<name>} as an answer, typed by its extension. */
  static AdminResponse load(String name) {
    try (InputStream in = WebAssets.class.getResourceAsStream("web/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource web/" + name);
      }
      String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
      return new AdminResponse(200, type, in.readAllBytes(), Map.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
