package dev.leasehold.bench;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.store.redis.RedisStoreFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Redlock store on three throwaway {@code redis-server} processes (no persistence) on free
 * loopback ports of this machine, started for the trial and killed after it. Only Leasehold's
 * operations: ShedLock has no Redlock provider, and the floor is {@link RedisBench}'s.
 */
public class RedlockBench extends LeaseBench {
  private static final int NODES = 3;

  private final List<Process> servers = new ArrayList<>();

  @Override
  protected StoreBackend open() throws IOException, InterruptedException {
    List<String> urls = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      urls.add(startServer());
    }
    return new RedisStoreFactory()
        .open(
            new StoreSettings(
                "redlock", null, urls, null, null, RUN + ":", Duration.ofSeconds(5), Map.of()));
  }

  private String startServer() throws IOException, InterruptedException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path dir = Files.createTempDirectory("lh-bench-redis-");
    Process process =
        new ProcessBuilder(
                "redis-server",
                "--port",
                "" + port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    servers.add(process);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!listening("127.0.0.1", port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("redis-server on port " + port + " did not start");
      }
      Thread.sleep(20);
    }
    return "redis://127.0.0.1:" + port;
  }

  @Override
  protected void close() throws InterruptedException {
    for (Process process : servers) {
      process.destroyForcibly();
      process.waitFor();
    }
  }
}
