package dev.leasehold.store.sql;

import dev.leasehold.core.lease.LeaseStoreException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the embedded H2 database leaves on disk and on the network, kept private to the user that
 * runs Leasehold.
 *
 * <p>With {@code AUTO_SERVER=TRUE} the first process that opens a file serves it to later processes
 * over TCP: H2 writes the port and a random key into {@code NAME.lock.db}, and whoever reads that
 * key can open the database (and, as its administrator, run code through {@code CREATE ALIAS}). So:
 * the server socket is bound to the loopback interface ({@code h2.bindAddress}, read once by H2
 * when its classes load, so it is set before any H2 class is touched), a data directory that
 * Leasehold creates is {@code 0700}, and the database's files are made {@code 0600}.
 */
final class H2Files {
  private static final Logger log = LoggerFactory.getLogger(H2Files.class);

  /** The system property H2 binds its server sockets to. */
  static final String BIND_ADDRESS = "h2.bindAddress";

  private static final String FILE_PREFIX = "jdbc:h2:file:";
  private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> OWNER_ONLY_FILE =
      PosixFilePermissions.fromString("rw-------");

  private H2Files() {}

  /**
   * Binds H2's sockets to loopback unless the JVM was started with a loopback {@code
   * h2.bindAddress} of its own. Must run before H2's {@code SysProperties} class is loaded.
   */
  static void bindToLoopback() {
    String configured = System.getProperty(BIND_ADDRESS);
    if (configured == null || !isLoopback(configured)) {
      System.setProperty(BIND_ADDRESS, "127.0.0.1");
    }
  }

  private static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * The database file's path prefix ({@code ./data/quickstart} for {@code
   * jdbc:h2:file:./data/quickstart;...}), or {@code null} for URLs that are not an embedded file.
   */
  static Path databasePath(String url) {
    if (url == null || !url.startsWith(FILE_PREFIX)) {
      return null;
    }
    String path = url.substring(FILE_PREFIX.length());
    int settings = path.indexOf(';');
    if (settings >= 0) {
      path = path.substring(0, settings);
    }
    if (path.equals("~") || path.startsWith("~/")) {
      path = System.getProperty("user.home") + path.substring(1);
    }
    return path.isBlank() ? null : Path.of(path).toAbsolutePath().normalize();
  }

  /**
   * Before the database is opened: creates a missing data directory as {@code 0700} (warning when
   * an existing one is open to other users, which Leasehold does not change), and makes the files
   * already there {@code 0600}.
   */
  static void prepare(String url) {
    Path db = databasePath(url);
    if (db == null || !posix()) {
      return;
    }
    Path dir = db.getParent();
    try {
      if (!Files.isDirectory(dir)) {
        createPrivateDirectories(dir);
      } else if (openToOthers(dir)) {
        log.warn(
            "H2 data directory {} can be entered by other users; its database files are kept"
                + " 0600, but chmod 700 it so that nothing there is reachable",
            dir);
      }
    } catch (IOException e) {
      throw new LeaseStoreException("SQL store: cannot create the H2 data directory " + dir, e);
    }
    restrictFiles(db);
  }

  /** After the database is open (H2 has written its lock file and key): files {@code 0600}. */
  static void restrictFiles(Path db) {
    if (db == null || !posix() || !Files.isDirectory(db.getParent())) {
      return;
    }
    String prefix = db.getFileName() + ".";
    try (DirectoryStream<Path> files = Files.newDirectoryStream(db.getParent())) {
      for (Path file : files) {
        if (file.getFileName().toString().startsWith(prefix) && Files.isRegularFile(file)) {
          Files.setPosixFilePermissions(file, OWNER_ONLY_FILE);
        }
      }
    } catch (IOException e) {
      throw new LeaseStoreException("SQL store: cannot restrict the H2 files " + db + ".*", e);
    }
  }

  private static void createPrivateDirectories(Path dir) throws IOException {
    Path parent = dir.getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      createPrivateDirectories(parent);
    }
    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    // the umask may have taken bits away, never added any; set exactly 0700
    Files.setPosixFilePermissions(dir, OWNER_ONLY_DIR);
  }

  private static boolean openToOthers(Path dir) throws IOException {
    Set<PosixFilePermission> p = Files.getPosixFilePermissions(dir);
    return p.contains(PosixFilePermission.GROUP_EXECUTE)
        || p.contains(PosixFilePermission.OTHERS_EXECUTE);
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
