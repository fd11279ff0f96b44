package dev.leasehold.store.zookeeper;

import static dev.leasehold.store.zookeeper.ZooKeeperSession.dataOf;
import static dev.leasehold.store.zookeeper.ZooKeeperSession.statOf;

import dev.leasehold.core.lease.ClaimResult;
import dev.leasehold.core.lease.DeletedRecords;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Lease;
import dev.leasehold.core.lease.LeaseArguments;
import dev.leasehold.core.lease.LeaseState;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pause;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.store.StoreSelfCheck;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases on ZooKeeper. Per name, three nodes under the store's base path:
 *
 * <ul>
 *   <li>{@code jobs/<name>} (persistent): the watermark, and the pause ({@link JobNode}). Every
 *       claim and acquisition rewrites it with a version-checked {@code setData} in the same {@code
 *       multi} that creates the lease node, so its {@code mzxid} is the zxid of that transaction,
 *       which is the lease node's creation zxid: the fence. Zxids rise strictly across the whole
 *       ensemble and survive leader changes.
 *   <li>{@code leases/<name>}: exists while the lease may be held; data {@code "<token> <ttl-ms>
 *       <holder>"}. It is <b>ephemeral</b> (it ends with the holder's session, decided by the
 *       ensemble) when the TTL fits in the session timeout the ensemble granted, else persistent.
 *   <li>{@code highwater/<name>} (persistent): the highest firing claimed ({@link HighWater}),
 *       written in the same {@code multi} as the job node; it stands in for the job node's
 *       watermark when that node was deleted by hand.
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
 * <p><b>Claim</b>: one read-only {@code multi} reads the three nodes; the watermark and a live
 * lease are judged there (with the clock write when a lease node exists); then one {@code multi}
 * checks the versions read, deletes an expired lease node, moves the watermark (in the job and
 * high-water nodes) and creates the lease node. A version that moved in between fails the whole
 * transaction and the claim reads again.
 */
final class ZooKeeperLeaseStore implements LeaseStore, Pauses, NodeRecords, Forgetting {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseStore.class);
  private static final int ATTEMPTS = 8;

  private final ZooKeeperSession session;
  private final ZooKeeperPaths paths;

  ZooKeeperLeaseStore(ZooKeeperSession session, ZooKeeperPaths paths) {
    this.session = session;
    this.paths = paths;
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

  /**
   * A claim of {@code firing}, or an acquisition when {@code firing} is null. A job node that is
   * missing while its high-water node exists was deleted by hand: its watermark is taken from the
   * high-water node (so a firing already claimed is refused) and written back by the claim that
   * wins, which logs a warning.
   */
  private ClaimResult take(
      String name, Instant firing, String holder, Duration ttl, long ttlMillis) {
    paths.ensureLayout(session);
    String token = LeaseArguments.newToken();
    return retrying(
        "claim",
        name,
        () -> {
          List<OpResult> read = readNodes(name);
          Stat job = statOf(read.get(0));
          HighWater high = HighWater.of(read.get(2));
          boolean restoring = job == null && high.exists();
          JobNode jobNode =
              job == null
                  ? new JobNode(high.firing(), null, null)
                  : JobNode.parse(dataOf(read.get(0)));
          Instant watermark = jobNode.watermark();
          if (firing != null && watermark != null && !watermark.isBefore(firing)) {
            return ClaimResult.alreadyRun(watermark);
          }
          if (firing != null && jobNode.pause() != null) {
            // paused: record the firing on the job and high-water nodes (no lease), version-checked
            byte[] recorded = bytes(jobNode.recordedPaused(firing).toString());
            session.multi(
                List.of(
                    Op.setData(paths.job(name), recorded, job.getVersion()),
                    high.raise(paths.highWater(name), firing, session.acl())));
            return ClaimResult.paused(firing);
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
          JobNode next = firing != null ? jobNode.withWatermark(firing) : jobNode;
          byte[] mark =
              bytes(firing == null && job != null ? dataOf(read.get(0)) : next.toString());
          if (job == null) {
            ops.add(Op.create(paths.job(name), mark, session.acl(), ZooKeeperSession.mode(false)));
            ops.add(Op.setData(paths.job(name), mark, 0));
          } else {
            ops.add(Op.setData(paths.job(name), mark, job.getVersion()));
          }
          int fenceAt = ops.size() - 1;
          ops.add(high.raise(paths.highWater(name), next.watermark(), session.acl()));
          boolean ephemeral = ttlMillis <= session.negotiatedSessionTimeoutMillis();
          byte[] data = bytes(new LeaseNode(token, ttlMillis, holder).toString());
          ops.add(
              Op.create(paths.lease(name), data, session.acl(), ZooKeeperSession.mode(ephemeral)));
          List<OpResult> done = session.multi(ops);
          long fence = ((OpResult.SetDataResult) done.get(fenceAt)).getStat().getMzxid();
          if (restoring) {
            log.warn(
                DeletedRecords.restored(
                    name,
                    paths.job(name)
                        + " was missing; watermark "
                        + high.firing()
                        + " taken from "
                        + paths.highWater(name),
                    high.stat().getMzxid(),
                    fence));
          }
          return ClaimResult.won(new Lease(name, holder, token, fence, ttl, null));
        });
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    LeaseArguments.lease(lease);
    long ttlMillis = LeaseArguments.ttlMillis(ttl);
    Held held = held(lease);
    if (held == null || !held.node().liveAt(held.stat(), session.serverNow(paths.clock()))) {
      return false;
    }
    Pause pause = JobNode.of(session.read(List.of(paths.job(lease.name()))).get(0)).pause();
    if (pause != null && pause.stopRunning()) {
      return false; // paused with stop: the holder stops as on a lost lease
    }
    String path = paths.lease(lease.name());
    Stat stat = held.stat();
    byte[] data = bytes(new LeaseNode(lease.token(), ttlMillis, held.node().holder()).toString());
    boolean ephemeral = stat.getEphemeralOwner() != 0;
    return applied(
        ephemeral && ttlMillis > session.negotiatedSessionTimeoutMillis()
            // a TTL beyond the session timeout must not end with a session: persistent from now
            ? List.of(
                Op.delete(path, stat.getVersion()),
                Op.create(path, data, session.acl(), ZooKeeperSession.mode(false)))
            : List.of(Op.setData(path, data, stat.getVersion())));
  }

  /** One consistent read of the job, lease and high-water nodes of {@code name}, in that order. */
  private List<OpResult> readNodes(String name) {
    return session.read(List.of(paths.job(name), paths.lease(name), paths.highWater(name)));
  }

  /** The lease node of {@code lease} while it still holds its token, else null. */
  private Held held(Lease lease) {
    List<OpResult> read = session.read(List.of(paths.lease(lease.name())));
    Stat stat = statOf(read.get(0));
    if (stat == null) {
      return null;
    }
    LeaseNode node = LeaseNode.parse(dataOf(read.get(0)));
    return node.token().equals(lease.token()) ? new Held(stat, node) : null;
  }

  /** A lease node as read, with the stat its version-checked writes compare. */
  private record Held(Stat stat, LeaseNode node) {}

  /** Runs a version-checked {@code multi} on a held lease node: false when the node moved. */
  private boolean applied(List<Op> ops) {
    try {
      session.multi(ops);
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      return false;
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  /**
   * Runs {@code attempt} (a read, a judgement and one version-checked {@code multi}) until it
   * answers: a transaction that failed because someone moved first (a version that changed, a node
   * created or deleted in between) reads again and judges again, at most {@value #ATTEMPTS} times.
   */
  private <T> T retrying(String what, String name, Attempt<T> attempt) {
    for (int i = 0; i < ATTEMPTS; i++) {
      try {
        return attempt.run();
      } catch (KeeperException.NodeExistsException
          | KeeperException.BadVersionException
          | KeeperException.NoNodeException e) {
        // someone moved first: read again and judge again
      } catch (KeeperException e) {
        throw session.failure(e);
      }
    }
    throw new LeaseStoreException(
        what + " of " + name + " lost " + ATTEMPTS + " races in a row on ZooKeeper " + session);
  }

  @FunctionalInterface
  private interface Attempt<T> {
    T run() throws KeeperException;
  }

  /**
   * Writes the pause into the job node (created when the name was never claimed), version-checked
   * like a claim: a claim that read the node before fails its own check and reads the pause. {@code
   * since} is the leader's clock (the clock node's write).
   */
  @Override
  public Pause pause(String name, String by, String reason, boolean stopRunning) {
    LeaseArguments.name(name);
    Pause.check(by, reason);
    paths.ensureLayout(session);
    return retrying(
        "pause",
        name,
        () -> {
          OpResult read = session.read(List.of(paths.job(name))).get(0);
          Stat job = statOf(read);
          JobNode node = JobNode.of(read);
          Instant since =
              node.pause() != null
                  ? node.pause().since()
                  : Instant.ofEpochMilli(session.serverNow(paths.clock()));
          Pause pause = new Pause(since, by, reason, stopRunning);
          byte[] data = bytes(node.paused(pause).toString());
          Op write =
              job == null
                  ? Op.create(paths.job(name), data, session.acl(), ZooKeeperSession.mode(false))
                  : Op.setData(paths.job(name), data, job.getVersion());
          session.multi(List.of(write));
          return pause;
        });
  }

  /**
   * Removes the pause from the job node, version-checked; with catch-up, when the watermark is the
   * firing recorded as paused last, the same write lowers it by a millisecond.
   */
  @Override
  public boolean resume(String name, boolean catchUp) {
    LeaseArguments.name(name);
    paths.ensureLayout(session);
    return retrying(
        "resume",
        name,
        () -> {
          OpResult read = session.read(List.of(paths.job(name))).get(0);
          Stat job = statOf(read);
          JobNode node = JobNode.of(read);
          if (node.pause() == null) {
            return false;
          }
          JobNode resumed = node.paused(null);
          if (catchUp && node.watermark() != null && node.watermark().equals(node.pausedFire())) {
            resumed = resumed.withWatermark(node.watermark().minusMillis(1));
          }
          session.multi(
              List.of(Op.setData(paths.job(name), bytes(resumed.toString()), job.getVersion())));
          return true;
        });
  }

  @Override
  public boolean release(Lease lease) {
    LeaseArguments.lease(lease);
    Held held = held(lease);
    return held != null
        && applied(List.of(Op.delete(paths.lease(lease.name()), held.stat().getVersion())));
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

  /**
   * Reads both nodes; when the job is not paused and no lease node lives (on the ensemble's clock),
   * one version-checked {@code multi} deletes the expired lease node, if any, and the job node. The
   * fence is a zxid, which never goes back, so the next claim's fence is above every one given. The
   * high-water node stays, so a firing already claimed stays spent (for a self-check scratch name,
   * which nothing is fenced by and whose check claims the same firings again, it goes too).
   */
  @Override
  public boolean forget(String name) {
    LeaseArguments.name(name);
    paths.ensureLayout(session);
    return retrying(
        "forget",
        name,
        () -> {
          List<OpResult> read = readNodes(name);
          Stat job = statOf(read.get(0));
          Stat lease = statOf(read.get(1));
          Stat high = statOf(read.get(2));
          if (job == null && lease == null) {
            return false;
          }
          if (JobNode.of(read.get(0)).pause() != null) {
            return false;
          }
          List<Op> ops = new ArrayList<>();
          if (lease != null) {
            if (LeaseNode.parse(dataOf(read.get(1)))
                .liveAt(lease, session.serverNow(paths.clock()))) {
              return false;
            }
            ops.add(Op.delete(paths.lease(name), lease.getVersion()));
          }
          if (job != null) {
            ops.add(Op.delete(paths.job(name), job.getVersion()));
          }
          if (high != null && StoreSelfCheck.isScratch(name)) {
            ops.add(Op.delete(paths.highWater(name), high.getVersion()));
          }
          session.multi(ops);
          return true;
        });
  }

  /** A persistent znode under {@code nodes} ({@link ZooKeeperNodes}). */
  @Override
  public void publishNode(dev.leasehold.core.lease.NodeRecord node, Duration ttl) {
    new ZooKeeperNodes(session, paths).publish(node, ttl);
  }

  @Override
  public List<dev.leasehold.core.lease.NodeRecord> nodes() {
    return new ZooKeeperNodes(session, paths).read();
  }

  /**
   * The time the leader stamps on a write of the clock node: the clock a lease's {@code mtime} and
   * its liveness are judged on (one small write, as every liveness judgement makes).
   */
  @Override
  public Optional<Instant> storeTime() {
    return Optional.of(Instant.ofEpochMilli(session.serverNow(paths.clock())));
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
    JobNode jobNode = JobNode.of(job);
    Instant watermark = jobNode.watermark();
    long fence = jobStat == null ? 0 : jobStat.getMzxid();
    if (leaseStat == null) {
      return new LeaseState(name, null, null, watermark, fence, false, jobNode.pause());
    }
    LeaseNode node = LeaseNode.parse(dataOf(lease));
    boolean held = node.liveAt(leaseStat, now);
    Instant until = Instant.ofEpochMilli(leaseStat.getMtime() + node.ttlMillis());
    return new LeaseState(
        name, held ? node.holder() : null, until, watermark, fence, held, jobNode.pause());
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
