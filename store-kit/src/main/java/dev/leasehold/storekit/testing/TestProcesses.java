package dev.leasehold.storekit.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** What the tests that start server processes of their own (etcd, ZooKeeper, Redis) share. */
public final class TestProcesses {
  private TestProcesses() {}

  /** A TCP port nothing listens on right now (bound, then closed). */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL, then waits until the process is gone; nothing when it never started. */
  public static void kill(Process process) {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes a temporary directory and everything under it; one left behind is harmless. */
  public static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // a temp dir left behind is harmless
    }
  }

  /** Thread.sleep for polling loops; an interrupt ends the test. */
  public static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
