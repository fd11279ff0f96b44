package dev.leasehold.packaging;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** What `mvn package` made (paths from the POM) and the image built from it, once per test JVM. */
final class Release {
  static final String VERSION = System.getProperty("leasehold.version", "0.1.0-SNAPSHOT");
  static final String IMAGE = "localhost/leasehold:" + VERSION;
  static final Path ARCHIVE = Path.of(System.getProperty("leasehold.release.archive", "missing"));
  static final Path TREE = Path.of(System.getProperty("leasehold.release.tree", "missing"));
  static final Path SOURCE = Path.of(System.getProperty("leasehold.source.tree", "..")).normalize();
  static final Path BUILD_DIR = SOURCE.resolve("packaging/target");

  private static boolean imageBuilt;

  private Release() {}

  /**
   * Builds leasehold:VERSION from the unpacked release tree with the recipe users run, the public
   * base swapped for the local one (build-arg BASE), and leaves it in the local podman store.
   */
  static synchronized Podman imageBuilt() {
    Podman podman = new Podman(BUILD_DIR);
    if (!imageBuilt) {
      if (!Files.isRegularFile(TREE.resolve("Containerfile"))) {
        throw new AssertionError(TREE + "/Containerfile missing: run mvn package first");
      }
      podman.ensureBaseImage(SOURCE.resolve("packaging/src/test/container/make-base.sh"));
      podman.ok(
          Duration.ofMinutes(15),
          "build",
          "--format",
          "docker",
          "--network",
          "host",
          "--build-arg",
          "BASE=" + Podman.BASE_IMAGE,
          "-t",
          IMAGE,
          TREE.toString());
      imageBuilt = true;
    }
    return podman;
  }
}
