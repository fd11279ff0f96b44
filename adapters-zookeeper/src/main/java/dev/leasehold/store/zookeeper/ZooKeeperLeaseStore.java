package dev.leasehold.store.zookeeper;

import static dev.leasehold.store.zookeeper.ZooKeeperSession.dataOf;
import static dev.leasehold.store.zookeeper.ZooKeeperSession.statOf;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * Leases on ZooKeeper. Per name, two nodes under the store's base path:
 *
 * <ul>
 *   <li>{@code jobs/<name>} (persistent): the watermark (epoch milliseconds, empty when none).
 *       Every claim and acquisition rewrites it with a version-checked {@code setData} in the same
 *       {@code multi} that creates the lease node, so its {@code mzxid} is the zxid of that
 *       transaction, which is the lease node's creation zxid: the fence. Zxids rise strictly across
 *       the whole ensemble and survive leader changes.
 *   <li>{@code leases/<name>}: exists while the lease may be held; data {@code "<token> <ttl-ms>
 *       <holder>"}. It is <b>ephemeral</b> (it ends with the holder's session, decided by the
 *       ensemble) when the TTL fits in the session timeout the ensemble granted, else persistent.
 * </ul>
 *
 * <p><b>TTL mapping.</b> A session is not a lease: it lives as long as the client process pings,
 * and its timeout is bounded by the ensemble (min/max session timeout). So the TTL is kept by the
 * lease node itself: the lease is live while {@code mtime + ttl} lies ahead of the ensemble's
 * clock, where {@code mtime} is stamped by the leader on the claim or the last renewal and "now" is
 * read by a write to a clock node (the leader stamps it too). Renewals rewrite the lease node. The
 * session adds what a session can give safely: the node of a holder whose session ends (crashed,
 * partitioned beyond the timeout, closed) goes at once. That is safe only when the session timeout
 * is at least the TTL (the ensemble expires a session no earlier than the timeout after the last
 * ping, which is after the holder's last renewal started), so a longer TTL gets a persistent node
 * and the TTL alone.
 *
 * <p><b>Claim</b>: one read-only {@code multi} reads both nodes; the watermark and a live lease are
 * judged there (with the clock write when a lease node exists); then one {@code multi} checks the
 * versions read, deletes an expired lease node, moves the watermark and creates the lease node. A
 * version that moved in between fails the whole transaction and the claim reads again.
 */
final class ZooKeeperLeaseStore implements LeaseStore {
  private static final int ATTEMPTS = 8;

  private final ZooKeeperSession session;
  private final ZooKeeperPaths paths;

  ZooKeeperLeaseStore(ZooKeeperSession session, ZooKeeperPaths paths) {
    this.session = session;
    this.paths = paths;
  }

  @Override
  public Optional<Lease> claim(String name, Instant firing, String holder, Duration ttl) {
    return tryClaim(name, firing, holder, ttl).leaseIfWon();
  }

  @Override
  public ClaimResult tryClaim(String name, Instant firing, String holder, Duration ttl) {
    LeaseArguments.name(name);
    Instant at = LeaseArguments.firing(firing);
    LeaseArguments.holder(holder);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    return take(name, at, holder, ttl, ttlMillis);
  }

  @Override
  public Optional<Lease> acquire(String name, String holder, Duration ttl) {
    LeaseArguments.name(name);
    LeaseArguments.holder(holder);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    return take(name, null, holder, ttl, ttlMillis).leaseIfWon();
  }

  /** A claim of {@code firing}, or an acquisition when {@code firing} is null. */
  private ClaimResult take(
      String name, Instant firing, String holder, Duration ttl, long ttlMillis) {
    paths.ensureLayout(session);
    String token = LeaseArguments.newToken();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      List<OpResult> read = session.read(List.of(paths.job(name), paths.lease(name)));
      Stat job = statOf(read.get(0));
      Instant watermark = job == null ? null : decode(dataOf(read.get(0)));
      if (firing != null && watermark != null && !watermark.isBefore(firing)) {
        return ClaimResult.alreadyRun(watermark);
      }
      Stat lease = statOf(read.get(1));
      List<Op> ops = new ArrayList<>();
      if (lease != null) {
        LeaseNode node = LeaseNode.parse(dataOf(read.get(1)));
        if (node.liveAt(lease, session.serverNow(paths.clock()))) {
          return ClaimResult.held(node.holder(), watermark);
        }
        ops.add(Op.delete(paths.lease(name), lease.getVersion()));
      }
      byte[] mark = bytes(firing != null ? encode(firing) : job == null ? "" : dataOf(read.get(0)));
      if (job == null) {
        ops.add(Op.create(paths.job(name), mark, session.acl(), ZooKeeperSession.mode(false)));
        ops.add(Op.setData(paths.job(name), mark, 0));
      } else {
        ops.add(Op.setData(paths.job(name), mark, job.getVersion()));
      }
      boolean ephemeral = ttlMillis <= session.negotiatedSessionTimeoutMillis();
      byte[] data = bytes(new LeaseNode(token, ttlMillis, holder).toString());
      ops.add(Op.create(paths.lease(name), data, session.acl(), ZooKeeperSession.mode(ephemeral)));
      try {
        List<OpResult> done = session.multi(ops);
        long fence = ((OpResult.SetDataResult) done.get(ops.size() - 2)).getStat().getMzxid();
        return ClaimResult.won(new Lease(name, holder, token, fence, ttl, null));
      } catch (KeeperException.NodeExistsException
          | KeeperException.BadVersionException
          | KeeperException.NoNodeException e) {
        // someone moved first: read again and judge again
      } catch (KeeperException e) {
        throw session.failure(e);
      }
    }
    throw new LeaseStoreException(
        "claim of " + name + " lost " + ATTEMPTS + " races in a row on ZooKeeper " + session);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    String path = paths.lease(lease.name());
    List<OpResult> read = session.read(List.of(path));
    Stat stat = statOf(read.get(0));
    if (stat == null) {
      return false;
    }
    LeaseNode node = LeaseNode.parse(dataOf(read.get(0)));
    if (!node.token().equals(lease.token())
        || !node.liveAt(stat, session.serverNow(paths.clock()))) {
      return false;
    }
    byte[] data = bytes(new LeaseNode(node.token(), ttlMillis, node.holder()).toString());
    boolean ephemeral = stat.getEphemeralOwner() != 0;
    List<Op> ops =
        ephemeral && ttlMillis > session.negotiatedSessionTimeoutMillis()
            // a TTL beyond the session timeout must not end with a session: persistent from now
            ? List.of(
                Op.delete(path, stat.getVersion()),
                Op.create(path, data, session.acl(), ZooKeeperSession.mode(false)))
            : List.of(Op.setData(path, data, stat.getVersion()));
    try {
      session.multi(ops);
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      return false;
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    String path = paths.lease(lease.name());
    List<OpResult> read = session.read(List.of(path));
    Stat stat = statOf(read.get(0));
    if (stat == null || !LeaseNode.parse(dataOf(read.get(0))).token().equals(lease.token())) {
      return false;
    }
    try {
      session.multi(List.of(Op.delete(path, stat.getVersion())));
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      return false;
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  @Override
  public Optional<LeaseState> inspect(String name) {
    LeaseArguments.name(name);
    paths.ensureLayout(session);
    List<OpResult> read = session.read(List.of(paths.job(name), paths.lease(name)));
    if (statOf(read.get(0)) == null && statOf(read.get(1)) == null) {
      return Optional.empty();
    }
    long now = statOf(read.get(1)) == null ? 0 : session.serverNow(paths.clock());
    return Optional.of(state(name, read.get(0), read.get(1), now));
  }

  @Override
  public List<LeaseState> list() {
    paths.ensureLayout(session);
    List<String> names;
    try {
      names = session.call(() -> session.zk().getChildren(paths.jobs(), false));
    } catch (KeeperException e) {
      throw session.failure(e);
    }
    List<String> sorted = names.stream().sorted().toList();
    List<String> toRead = new ArrayList<>();
    for (String name : sorted) {
      toRead.add(paths.job(name));
      toRead.add(paths.lease(name));
    }
    List<OpResult> read = toRead.isEmpty() ? List.of() : session.read(toRead);
    long now = sorted.isEmpty() ? 0 : session.serverNow(paths.clock());
    List<LeaseState> states = new ArrayList<>();
    for (int i = 0; i < sorted.size(); i++) {
      states.add(state(sorted.get(i), read.get(2 * i), read.get(2 * i + 1), now));
    }
    return states;
  }

  private static LeaseState state(String name, OpResult job, OpResult lease, long now) {
    Stat jobStat = statOf(job);
    Stat leaseStat = statOf(lease);
    Instant watermark = jobStat == null ? null : decode(dataOf(job));
    long fence = jobStat == null ? 0 : jobStat.getMzxid();
    if (leaseStat == null) {
      return new LeaseState(name, null, null, watermark, fence, false);
    }
    LeaseNode node = LeaseNode.parse(dataOf(lease));
    boolean held = node.liveAt(leaseStat, now);
    Instant until = Instant.ofEpochMilli(leaseStat.getMtime() + node.ttlMillis());
    return new LeaseState(name, held ? node.holder() : null, until, watermark, fence, held);
  }

  private static String encode(Instant firing) {
    return Long.toString(firing.toEpochMilli());
  }

  private static Instant decode(String watermark) {
    return watermark == null || watermark.isEmpty()
        ? null
        : Instant.ofEpochMilli(Long.parseLong(watermark));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** For tests: the session this store's leases are created in. */
  ZooKeeperSession session() {
    return session;
  }

  @Override
  public void close() {
    session.close();
  }

  @Override
  public String toString() {
    return "zookeeper " + session + " " + paths;
  }

  /** The data of a lease node. */
  record LeaseNode(String token, long ttlMillis, String holder) {
    /**
     * Data that is not a lease node's (written by hand, say) reads as a lease without token or TTL:
     * nobody can renew or release it, and a claim replaces it as expired.
     */
    static LeaseNode parse(String data) {
      String[] parts = data == null ? new String[0] : data.split(" ", 3);
      if (parts.length == 3 && parts[1].matches("[0-9]{1,18}")) {
        return new LeaseNode(parts[0], Long.parseLong(parts[1]), parts[2]);
      }
      return new LeaseNode("", 0, "");
    }

    /** Live while the leader's clock has not passed the last write plus the TTL. */
    boolean liveAt(Stat stat, long serverNow) {
      return serverNow < stat.getMtime() + ttlMillis;
    }

    @Override
    public String toString() {
      return token + " " + ttlMillis + " " + holder;
    }
  }
}
