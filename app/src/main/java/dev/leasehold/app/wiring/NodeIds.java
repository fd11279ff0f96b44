package dev.leasehold.app.wiring;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The default node id, {@code hostname-pid}: unique per process, readable in status output. */
public final class NodeIds {
  private NodeIds() {}

  public static String defaultNode(Map<String, String> env) {
    return hostname(env) + "-" + ProcessHandle.current().pid();
  }

  private static String hostname(Map<String, String> env) {
    String name = env.get("HOSTNAME");
    if (name == null || name.isBlank()) {
      try {
        name = Files.readString(Path.of("/etc/hostname")).strip();
      } catch (IOException | RuntimeException e) {
        name = null;
      }
    }
    if (name == null || name.isBlank()) {
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        name = "localhost";
      }
    }
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
