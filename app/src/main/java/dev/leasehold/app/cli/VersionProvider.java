package dev.leasehold.app.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version from the build ({@code version.properties}, filtered by Maven). */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    Properties p = new Properties();
    try (InputStream in =
        VersionProvider.class.getResourceAsStream("/dev/leasehold/app/version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown"
    }
    return new String[] {
      "leasehold " + p.getProperty("version", "unknown"),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }
}
