package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.config.KeyPaths;
import java.net.InetAddress;

/** What {@code pause} and {@code resume} share. */
final class Steering {
  private Steering() {}

  /** The job of the file, or a bad-usage error listing the known ones. */
  static JobConfig knownJob(DaemonConfig c, String job) throws ConfigException {
    return c.job(job)
        .orElseThrow(
            () ->
                new ConfigException(
                    c.file(),
                    KeyPaths.JOBS,
                    "unknown job '" + job + "'; known: " + String.join(", ", c.jobNames())));
  }

  /** Who steers from this command line: {@code user@host}, as recorded with a pause. */
  static String operator() {
    String user = System.getProperty("user.name", "unknown");
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    String by = user + "@" + host;
    return by.length() > 200 ? by.substring(0, 200) : by;
  }

  static String unsupported(DaemonConfig c) {
    return "leasehold: store type "
        + c.store().type()
        + " does not keep pauses; nothing was changed (see docs/operations.md)";
  }
}
