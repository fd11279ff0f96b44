package dev.leasehold.store.zookeeper;

import dev.leasehold.core.store.StoreSettings;
import dev.leasehold.storekit.testing.ServerAvailability;
import dev.leasehold.storekit.testing.TestProcesses;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Throwaway ZooKeeper servers from the Debian package ({@code /usr/share/java/zookeeper.jar}), one
 * standalone server or an ensemble, on free loopback ports in a temporary directory, for the
 * store's tests and the daemon's black-box tests. tickTime 500 ms, session timeouts from 1 s to 60
 * s. Killed with SIGKILL, like a crash.
 */
public final class ZooKeeperServers implements AutoCloseable {
  public static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final Path JAR = Path.of("/usr/share/java/zookeeper.jar");

  private final Path dir;
  private final List<Server> servers = new ArrayList<>();
  private final String prefix = freshPrefix();

  private ZooKeeperServers(Path dir) {
    this.dir = dir;
  }

  /** Skips (or fails under CI=true) when the zookeeper package is not installed. */
  public static void requireInstalled() {
    if (!Files.isReadable(JAR)) {
      ServerAvailability.missing(
          JAR + " is missing (Debian package zookeeper); run: bash .ci/services.sh");
    }
  }

  /**
   * Starts {@code count} servers (1: standalone; 3 or 5: an ensemble) and waits until they serve.
   */
  public static ZooKeeperServers start(int count) {
    requireInstalled();
    try {
      ZooKeeperServers group = new ZooKeeperServers(Files.createTempDirectory("leasehold-zk-"));
      for (int i = 0; i < count; i++) {
        group.servers.add(
            new Server(
                i + 1,
                group.dir.resolve("zk" + (i + 1)),
                TestProcesses.freePort(),
                TestProcesses.freePort(),
                TestProcesses.freePort()));
      }
      String ensemble =
          count == 1
              ? ""
              : group.servers.stream()
                  .map(
                      s ->
                          "server."
                              + s.id
                              + "=127.0.0.1:"
                              + s.peerPort
                              + ":"
                              + s.electionPort
                              + "\n")
                  .collect(Collectors.joining());
      try {
        for (Server s : group.servers) {
          s.configure(ensemble);
          s.start();
        }
        group.servers.forEach(Server::awaitServing);
      } catch (RuntimeException e) {
        group.close();
        throw e;
      }
      return group;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start ZooKeeper", e);
    }
  }

  public static String freshPrefix() {
    return "lh-test-" + UUID.randomUUID().toString().substring(0, 8);
  }

  public Server server(int i) {
    return servers.get(i);
  }

  public String prefix() {
    return prefix;
  }

  /** {@code zk://127.0.0.1:p1,127.0.0.1:p2/<chroot>}. */
  public String url(String chroot) {
    return "zk://"
        + servers.stream().map(s -> "127.0.0.1:" + s.clientPort).collect(Collectors.joining(","))
        + chroot;
  }

  /** The index of the server whose {@code srvr} says {@code Mode: leader}. */
  public int leader() {
    for (int i = 0; i < servers.size(); i++) {
      String answer = servers.get(i).fourLetters("srvr");
      if (answer != null && answer.contains("Mode: leader")) {
        return i;
      }
    }
    throw new IllegalStateException("no ZooKeeper server says it leads");
  }

  /** The ensemble's connect string, without chroot. */
  public String connectString() {
    return servers.stream().map(s -> "127.0.0.1:" + s.clientPort).collect(Collectors.joining(","));
  }

  /** Settings for {@code store.type: zookeeper} under chroot {@code /leasehold-test}. */
  public StoreSettings settings() {
    return settings(Map.of());
  }

  public StoreSettings settings(Map<String, String> options) {
    return new StoreSettings(
        "zookeeper", url("/leasehold-test"), List.of(), null, null, prefix, TIMEOUT, options);
  }

  @Override
  public void close() {
    servers.forEach(Server::kill);
    TestProcesses.deleteTree(dir);
  }

  /** One ZooKeeper server process. */
  public static final class Server {
    private final int id;
    private final Path dataDir;
    private final int clientPort;
    private final int peerPort;
    private final int electionPort;
    private Process process;

    private Server(int id, Path dataDir, int clientPort, int peerPort, int electionPort) {
      this.id = id;
      this.dataDir = dataDir;
      this.clientPort = clientPort;
      this.peerPort = peerPort;
      this.electionPort = electionPort;
    }

    public int clientPort() {
      return clientPort;
    }

    private Path config() {
      return dataDir.resolveSibling("zk" + id + ".cfg");
    }

    private void configure(String ensemble) throws IOException {
      Files.createDirectories(dataDir);
      Files.writeString(dataDir.resolve("myid"), id + "\n");
      Files.writeString(
          config(),
          "tickTime=500\ninitLimit=20\nsyncLimit=10\n"
              + "dataDir="
              + dataDir
              + "\nclientPort="
              + clientPort
              + "\nclientPortAddress=127.0.0.1\n"
              + "minSessionTimeout=1000\nmaxSessionTimeout=60000\n"
              + "admin.enableServer=false\n4lw.commands.whitelist=ruok,srvr,stat\n"
              + ensemble);
    }

    /** Starts (or starts again, on the same data) the server process. */
    public void start() {
      String java = ProcessHandle.current().info().command().orElse("java");
      String mainClass =
          !ensembleConfigured()
              ? "org.apache.zookeeper.server.ZooKeeperServerMain"
              : "org.apache.zookeeper.server.quorum.QuorumPeerMain";
      try {
        process =
            new ProcessBuilder(
                    java,
                    "-Xmx128m",
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    JAR.toString(),
                    mainClass,
                    config().toString())
                .redirectErrorStream(true)
                .redirectOutput(dataDir.resolveSibling("zk" + id + ".log").toFile())
                .start();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start ZooKeeper", e);
      }
    }

    private boolean ensembleConfigured() {
      try {
        return Files.readString(config()).contains("server.");
      } catch (IOException e) {
        return false;
      }
    }

    /** SIGKILL, and waits until the process is gone. */
    public void kill() {
      TestProcesses.kill(process);
    }

    public void awaitServing() {
      long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < end) {
        String answer = fourLetters("srvr");
        if (answer != null && answer.contains("Mode:")) {
          return;
        }
        if (!process.isAlive()) {
          throw new IllegalStateException("ZooKeeper " + id + " exited; see its log in " + dataDir);
        }
        TestProcesses.pause(100);
      }
      throw new IllegalStateException("ZooKeeper " + id + " did not start serving");
    }

    /** A four-letter command's answer, or null when the server does not answer. */
    public String fourLetters(String command) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", clientPort), 1000);
        socket.setSoTimeout(2000);
        OutputStream out = socket.getOutputStream();
        out.write(command.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return null;
      }
    }
  }
}
