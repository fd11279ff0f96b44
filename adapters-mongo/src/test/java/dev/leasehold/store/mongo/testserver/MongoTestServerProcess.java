package dev.leasehold.store.mongo.testserver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link MongoTestServerMain} started as a child process of the test JVM (same classpath), with
 * extra environment variables such as a libfaketime preload that moves the server's clock.
 */
public final class MongoTestServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;

  private MongoTestServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the server on a free port and waits for its {@code listening on} line. */
  public static MongoTestServerProcess start(Map<String, String> environment) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx128m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    MongoTestServerMain.class.getName(),
                    "0"))
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().putAll(environment);
    Process process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (line == null || !line.matches("listening on \\d+")) {
      process.destroyForcibly();
      throw new IOException("test server did not start; first line: " + line);
    }
    return new MongoTestServerProcess(process, Integer.parseInt(line.substring(13)));
  }

  public int port() {
    return port;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
