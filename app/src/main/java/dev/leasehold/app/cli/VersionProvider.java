package dev.leasehold.app.cli;

import dev.leasehold.app.config.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/** The version from the build ({@code version.properties}, filtered by Maven). */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    return new String[] {
      "leasehold " + BuildInfo.version(),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }
}
