package dev.leasehold.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.core.store.StoreBackend;
import dev.leasehold.core.store.StoreSettings;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an embedded H2 file exposes: its directory and files are the owner's alone (the lock file
 * holds the key of the AUTO_SERVER port), and that port listens on loopback only.
 */
class H2FilesTest {
  @TempDir Path tmp;

  @Test
  void aNewDataDirectoryIs0700AndTheDatabaseFiles0600() throws Exception {
    Path dir = tmp.resolve("state/data");
    try (StoreBackend backend = open("jdbc:h2:file:" + dir.resolve("quickstart"))) {
      backend.leaseStore().acquire("job", "node-a", Duration.ofMinutes(1)).orElseThrow();

      assertThat(mode(dir)).isEqualTo("rwx------");
      assertThat(mode(tmp.resolve("state"))).isEqualTo("rwx------");
      assertThat(files(dir)).contains("quickstart.mv.db", "quickstart.lock.db");
      for (String file : files(dir)) {
        assertThat(mode(dir.resolve(file))).as(file).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void filesAlreadyThereAreRestrictedInADirectoryThatIsLeftAsItWas() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("shared"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path old = Files.createFile(dir.resolve("lh.trace.db"));
    Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r--r--"));

    try (StoreBackend backend = open("jdbc:h2:file:" + dir.resolve("lh"))) {
      backend.ping();
      assertThat(mode(dir)).isEqualTo("rwxr-xr-x");
      for (String file : files(dir)) {
        assertThat(mode(dir.resolve(file))).as(file).isEqualTo("rw-------");
      }
    }
  }

  @Test
  void theAutoServerPortListensOnLoopbackOnly() throws Exception {
    Path db = tmp.resolve("lh");
    try (StoreBackend backend = open("jdbc:h2:file:" + db)) {
      backend.ping();
      Properties lock = new Properties();
      lock.load(new StringReader(Files.readString(tmp.resolve("lh.lock.db"))));
      String server = lock.getProperty("server");
      assertThat(server).as("AUTO_SERVER address in the lock file").isNotNull();
      int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));

      List<String> listening = listeningAddresses(port);
      assertThat(listening).isNotEmpty().allSatisfy(a -> assertThat(a).isIn(LOOPBACK));
    }
  }

  @Test
  void theDatabasePathIsReadFromTheUrl() {
    assertThat(H2Files.databasePath("jdbc:h2:file:/var/lib/lh/db;AUTO_SERVER=TRUE"))
        .isEqualTo(Path.of("/var/lib/lh/db"));
    assertThat(H2Files.databasePath("jdbc:h2:file:~/lh"))
        .isEqualTo(Path.of(System.getProperty("user.home"), "lh"));
    assertThat(H2Files.databasePath("jdbc:h2:mem:x")).isNull();
  }

  private static StoreBackend open(String url) {
    return new SqlStoreFactory().open(StoreSettings.of("h2", url));
  }

  /** /proc/net/tcp{,6} addresses in hex: 127.0.0.1, ::1 and ::ffff:127.0.0.1. */
  private static final List<String> LOOPBACK =
      List.of("0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F");

  private static List<String> listeningAddresses(int port) throws IOException {
    String hexPort = String.format(Locale.ROOT, "%04X", port);
    List<String> out = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[1].endsWith(":" + hexPort) && f[3].equals("0A")) {
          out.add(f[1].substring(0, f[1].indexOf(':')));
        }
      }
    }
    return out;
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  private static List<String> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).toList();
    }
  }
}
