package dev.leasehold.app.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;

/**
 * Run by {@link SignalShutdownTest} as its own JVM: a stop action that takes a while (as the
 * daemon's does: jobs finish, history is written, the store closes) and a JVM shutdown hook that
 * stands for a library's (H2 closes its databases in one). Appends {@code ready} to the file named
 * by its second argument, then, after SIGTERM, the order in which they ran.
 */
public final class SignalShutdownProbe {
  private SignalShutdownProbe() {}

  private static Path out;

  public static void main(String[] args) throws Exception {
    out = Path.of(args[1]);
    ShutdownSignal signal =
        args[0].equals("signals") ? ShutdownSignal.signals() : ShutdownSignal.jvm();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> say("library hook ran")));
    CountDownLatch stopped = new CountDownLatch(1);
    signal.onShutdown(
        () -> {
          say("stop began");
          sleep(1500);
          say("stop finished");
          stopped.countDown();
        });
    say("ready");
    stopped.await();
    System.exit(0);
  }

  private static synchronized void say(String line) {
    try {
      Files.writeString(out, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
