package dev.leasehold.blackbox;

import dev.leasehold.blackbox.servers.RedisServerProcess;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code redlock} store for one test: three {@code redis-server}s the test started, one fresh
 * key prefix on all of them; the keys are deleted afterwards.
 */
final class RedlockTestStore implements BlackBoxStore {
  private final List<RedisServerProcess> servers;
  private final String prefix = RedisTestStore.freshPrefix();

  private RedlockTestStore(List<RedisServerProcess> servers) {
    this.servers = servers;
  }

  /** Three {@code redis-server}s started for {@code box}. */
  static RedlockTestStore start(BlackBox box) {
    return new RedlockTestStore(
        List.of(
            RedisServerProcess.start(box, "redis-1"),
            RedisServerProcess.start(box, "redis-2"),
            RedisServerProcess.start(box, "redis-3")));
  }

  int[] ports() {
    return servers.stream().mapToInt(RedisServerProcess::port).toArray();
  }

  @Override
  public String yaml() {
    return "type: redlock\nurls:\n"
        + servers.stream().map(s -> "  - " + s.url() + "\n").collect(Collectors.joining())
        + "key-prefix: \""
        + prefix
        + "\"\n";
  }

  /** The lease goes on every node; watermarks and fences stay. */
  @Override
  public void stealLease(String name) {
    servers.forEach(s -> RedisTestStore.on(s.port(), prefix).stealLease(name));
  }

  @Override
  public void close() {
    servers.forEach(s -> RedisTestStore.on(s.port(), prefix).close());
  }
}
