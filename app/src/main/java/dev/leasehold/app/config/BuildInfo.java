package dev.leasehold.app.config;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** What this build is: its version from {@code version.properties} (filtered by Maven). */
public final class BuildInfo {
  private static final String VERSION = read();

  private BuildInfo() {}

  /** The build's version, or {@code unknown} when the jar carries none. */
  public static String version() {
    return VERSION;
  }

  private static String read() {
    Properties p = new Properties();
    try (InputStream in =
        BuildInfo.class.getResourceAsStream("/dev/leasehold/app/version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return p.getProperty("version", "unknown");
  }
}
