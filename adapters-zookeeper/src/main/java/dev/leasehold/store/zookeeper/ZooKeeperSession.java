package dev.leasehold.store.zookeeper;

import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.StoreUnreachableException;
import dev.leasehold.core.store.ConnectFailures;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * One ZooKeeper session, kept by Apache Curator: Curator connects to the ensemble, moves between
 * servers, and opens a new session when the old one expired. The store uses the session's raw
 * {@link ZooKeeper} handle for its operations ({@code multi} transactions and read-only {@code
 * multi} reads, which Curator's API does not offer), so each operation is exactly one request:
 * nothing is retried behind the store's back, and an ambiguous answer (connection lost) is a {@link
 * LeaseStoreException}.
 *
 * <p>Paths are absolute (they include the URL's chroot and the key prefix). With a user name, the
 * session authenticates with the {@code digest} scheme and creates nodes readable and writable by
 * that user only.
 */
final class ZooKeeperSession implements AutoCloseable {
  private final CuratorFramework curator;
  private final Duration timeout;
  private final List<ACL> acl;
  private final String description;
  private final String connectString;

  /**
   * How long the first wait for a session lasts (at most half the command timeout) before the
   * servers are asked why it is late.
   */
  private static final Duration FIRST_WAIT = Duration.ofMillis(500);

  private static final String TIMED_OUT = "no session";

  ZooKeeperSession(
      String connectString,
      Duration sessionTimeout,
      Duration timeout,
      String username,
      String password,
      String description) {
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs((int) timeout.toMillis())
            .retryPolicy(new ExponentialBackoffRetry(100, 3));
    if (username != null) {
      builder.authorization("digest", (username + ":" + password).getBytes(StandardCharsets.UTF_8));
      this.acl = ZooDefs.Ids.CREATOR_ALL_ACL;
    } else {
      this.acl = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }
    this.curator = builder.build();
    this.timeout = timeout;
    this.description = description;
    this.connectString = connectString;
    curator.start();
  }

  List<ACL> acl() {
    return acl;
  }

  /** The handle of the current session, once connected (at most the command timeout). */
  ZooKeeper zk() {
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      long first = Math.min(timeout.toMillis() / 2, FIRST_WAIT.toMillis());
      if (!curator.blockUntilConnected((int) first, TimeUnit.MILLISECONDS)) {
        // Curator only says "not connected": ask each server ourselves, once, why; within the
        // command timeout
        List<String> reasons = probe(deadline);
        boolean noneListens = reasons.stream().noneMatch(r -> r.endsWith(": " + TIMED_OUT));
        long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
        if (noneListens || !curator.blockUntilConnected((int) left, TimeUnit.MILLISECONDS)) {
          throw new StoreUnreachableException(
              "ZooKeeper store: cannot connect to ZooKeeper at "
                  + (noneListens
                      ? String.join("; ", reasons)
                      : connectString + ": " + ConnectFailures.timedOut(timeout)),
              null);
        }
      }
      return curator.getZookeeperClient().getZooKeeper();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseStoreException("interrupted while connecting to ZooKeeper", e);
    } catch (LeaseStoreException e) {
      throw e;
    } catch (Exception e) {
      throw new LeaseStoreException("ZooKeeper " + description + ": " + e.getMessage(), e);
    }
  }

  /**
   * Each server of the connect string and why a TCP connection to it fails now ("connection
   * refused", "unknown host"), or {@value #TIMED_OUT} when it accepts one (then the session itself
   * is what does not come up) or does not answer within its share of what is left of the command
   * timeout (at most a second).
   */
  private List<String> probe(long deadline) {
    List<String> out = new ArrayList<>();
    String[] servers = connectString.split(",");
    for (String server : servers) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      int wait = (int) Math.max(50, Math.min(1000, left / servers.length));
      String hostPort = server.strip();
      int colon = hostPort.lastIndexOf(':');
      String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      int port = colon < 0 ? 2181 : Integer.parseInt(hostPort.substring(colon + 1));
      String reason;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), wait);
        reason = TIMED_OUT;
      } catch (IOException e) {
        String plain = ConnectFailures.reason(e, Duration.ofSeconds(1));
        reason = plain == null || plain.startsWith("timed out") ? TIMED_OUT : plain;
      }
      out.add(ConnectFailures.hostPort(host, port) + ": " + reason);
    }
    return out;
  }

  /** The session timeout the ensemble granted (within its min and max session timeouts). */
  long negotiatedSessionTimeoutMillis() {
    return zk().getSessionTimeout();
  }

  /** The id of the current session. */
  long sessionId() {
    return zk().getSessionId();
  }

  /** Runs a {@code multi}; a failed transaction throws the {@link KeeperException} of its cause. */
  List<OpResult> multi(List<Op> ops) throws KeeperException {
    return call(() -> zk().multi(ops));
  }

  /**
   * A read-only {@code multi} of {@code getData} operations: one consistent round trip. A missing
   * node answers an {@link OpResult.ErrorResult} with {@code NONODE}; any other error (no
   * permission, for one) fails the read.
   */
  List<OpResult> read(List<String> paths) {
    List<OpResult> results;
    try {
      results = call(() -> zk().multi(paths.stream().map(Op::getData).toList()));
    } catch (KeeperException e) {
      throw failure(e);
    }
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult error
          && error.getErr() != KeeperException.Code.NONODE.intValue()) {
        throw failure(
            KeeperException.create(KeeperException.Code.get(error.getErr()), paths.get(i)));
      }
    }
    return results;
  }

  /** Writes the clock node and returns the time the ensemble's leader stamped on that write. */
  long serverNow(String clockPath) {
    try {
      return call(() -> zk().setData(clockPath, new byte[0], -1)).getMtime();
    } catch (KeeperException e) {
      throw failure(e);
    }
  }

  /**
   * Creates a persistent node unless it exists, and its parents only when it has none: one request
   * when the parent is there, walking up only as far as nodes are missing.
   */
  void ensure(String path) {
    try {
      call(() -> zk().create(path, new byte[0], acl, CreateMode.PERSISTENT));
    } catch (KeeperException.NodeExistsException e) {
      // already there
    } catch (KeeperException.NoNodeException e) {
      String parent = path.substring(0, path.lastIndexOf('/'));
      if (parent.isEmpty()) {
        throw failure(e); // the root is always there: not a missing parent
      }
      ensure(parent);
      ensure(path);
    } catch (KeeperException e) {
      throw failure(e);
    }
  }

  /** One ZooKeeper call whose {@link KeeperException} the caller handles. */
  <T> T call(Call<T> call) throws KeeperException {
    try {
      return call.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseStoreException("interrupted while calling ZooKeeper", e);
    }
  }

  /** A {@link KeeperException} that is not an expected answer: the store failed. */
  LeaseStoreException failure(KeeperException e) {
    return new LeaseStoreException(
        "ZooKeeper "
            + description
            + ": "
            + e.code()
            + (e.getPath() == null ? "" : " " + e.getPath()),
        e);
  }

  static Stat statOf(OpResult result) {
    return result instanceof OpResult.GetDataResult r ? r.getStat() : null;
  }

  static String dataOf(OpResult result) {
    return result instanceof OpResult.GetDataResult r && r.getData() != null
        ? new String(r.getData(), StandardCharsets.UTF_8)
        : null;
  }

  static CreateMode mode(boolean ephemeral) {
    return ephemeral ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT;
  }

  @Override
  public void close() {
    curator.close();
  }

  @Override
  public String toString() {
    return description;
  }

  @FunctionalInterface
  interface Call<T> {
    T run() throws KeeperException, InterruptedException;
  }
}
