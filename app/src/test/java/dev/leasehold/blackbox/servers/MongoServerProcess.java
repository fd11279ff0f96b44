package dev.leasehold.blackbox.servers;

import dev.leasehold.app.testing.Poll;
import dev.leasehold.blackbox.BlackBox;
import dev.leasehold.blackbox.Proc;
import dev.leasehold.store.mongo.testserver.MongoTestServerMain;
import dev.leasehold.storekit.testing.ServerAvailability;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Starts {@link MongoTestServerMain} as its own process (own process group, no libfaketime) on a
 * free port, with the test JVM's class path.
 */
public final class MongoServerProcess {
  private final int port;

  private MongoServerProcess(int port) {
    this.port = port;
  }

  public static MongoServerProcess start(BlackBox box) {
    int port = FreePort.pick();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Proc proc =
        box.start(
            "mongo-java-server",
            List.of(
                java,
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                testClasspath(),
                MongoTestServerMain.class.getName(),
                "" + port),
            Map.of());
    Poll.until(
        "mongo-java-server on port " + port,
        Duration.ofSeconds(60),
        () -> {
          if (!proc.isAlive()) {
            throw new AssertionError("mongo-java-server exited:\n" + proc.tail(30));
          }
          return proc.logContains("listening on ")
              && ServerAvailability.listening("127.0.0.1", port);
        });
    return new MongoServerProcess(port);
  }

  /** Failsafe's full test class path (its booter jar alone when it uses a manifest-only jar). */
  private static String testClasspath() {
    String full = System.getProperty("surefire.test.class.path");
    return full != null && !full.isBlank()
        ? full
        : System.getProperty("java.class.path").replace(File.pathSeparator, ":");
  }

  public int port() {
    return port;
  }

  public String url(String database) {
    return "mongodb://127.0.0.1:" + port + "/" + database;
  }
}
