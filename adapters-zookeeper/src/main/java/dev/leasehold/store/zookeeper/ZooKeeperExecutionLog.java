package dev.leasehold.store.zookeeper;

import static dev.leasehold.store.zookeeper.ZooKeeperSession.dataOf;
import static dev.leasehold.store.zookeeper.ZooKeeperSession.statOf;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.job.ExecutionRecord;
import dev.leasehold.core.job.HistoryRetention;
import dev.leasehold.core.job.Outcome;
import dev.leasehold.core.job.TriggerKind;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.lease.LeaseStoreException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * History as persistent sequential nodes {@code history/<job>/r-<sequence>}, one per record; the
 * sequence orders one job's records, the creation zxid orders records across jobs. Retention is
 * bounded per job: every 10th record of a job deletes the oldest beyond {@code history-max} in one
 * {@code multi}.
 */
final class ZooKeeperExecutionLog implements ExecutionLog {
  static final long DEFAULT_MAX_PER_JOB = 1000;
  private static final int TRIM_EVERY = 10;
  private static final String FIELD = "\u001f";

  /** A field that is {@code null}. */
  private static final String NONE = "\u0000";

  private final ZooKeeperSession session;
  private final ZooKeeperPaths paths;
  private final long maxPerJob;

  ZooKeeperExecutionLog(ZooKeeperSession session, ZooKeeperPaths paths, long maxPerJob) {
    this.session = session;
    this.paths = paths;
    this.maxPerJob = maxPerJob;
  }

  @Override
  public void record(ExecutionRecord record) {
    paths.ensureLayout(session);
    String parent = paths.history(record.job());
    byte[] data = encode(record).getBytes(StandardCharsets.UTF_8);
    String created;
    try {
      created = create(parent, data);
    } catch (KeeperException.NoNodeException e) {
      session.ensure(parent); // the job's first record
      try {
        created = create(parent, data);
      } catch (KeeperException again) {
        throw session.failure(again);
      }
    } catch (KeeperException e) {
      throw session.failure(e);
    }
    long sequence = Long.parseLong(created.substring(created.lastIndexOf('-') + 1));
    if (sequence % TRIM_EVERY == 0 && sequence >= maxPerJob) {
      trim(parent);
    }
  }

  private String create(String parent, byte[] data) throws KeeperException {
    return session.call(
        () ->
            session
                .zk()
                .create(parent + "/r-", data, session.acl(), CreateMode.PERSISTENT_SEQUENTIAL));
  }

  private void trim(String parent) {
    List<String> children = children(parent);
    if (children.size() <= maxPerJob) {
      return;
    }
    List<Op> deletes = new ArrayList<>();
    for (String child : children.subList(0, (int) (children.size() - maxPerJob))) {
      deletes.add(Op.delete(parent + "/" + child, -1));
    }
    try {
      for (int from = 0; from < deletes.size(); from += 500) {
        session.multi(deletes.subList(from, Math.min(deletes.size(), from + 500)));
      }
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  /**
   * Job by job: the oldest records beyond {@code max-per-job} (sequence order), then, reading the
   * oldest of the rest in small consistent batches, those created (on the server's clock) before
   * the cutoff, until one is younger. The deletes go in {@code multi}s of at most 500; a record
   * another pruner deleted first is skipped.
   */
  @Override
  public int prune(HistoryRetention retention, Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    paths.ensureLayout(session);
    long cutoff = retention.cutoff(now).toEpochMilli();
    List<String> doomed = new ArrayList<>();
    for (String job : children(paths.history())) {
      if (doomed.size() >= limit) {
        break;
      }
      String parent = paths.history(job);
      List<String> records = children(parent).stream().map(r -> parent + "/" + r).toList();
      int i = 0;
      for (; i < records.size() - retention.maxPerJob() && doomed.size() < limit; i++) {
        doomed.add(records.get(i));
      }
      boolean young = false;
      while (!young && i < records.size() && doomed.size() < limit) {
        List<String> batch =
            records.subList(i, Math.min(records.size(), i + Math.min(100, limit - doomed.size())));
        List<OpResult> read = session.read(batch);
        for (int k = 0; k < batch.size() && !young; k++, i++) {
          var stat = statOf(read.get(k));
          if (stat == null) {
            continue; // already gone
          }
          if (stat.getCtime() < cutoff) {
            doomed.add(batch.get(k));
          } else {
            young = true;
          }
        }
      }
    }
    int removed = 0;
    for (int from = 0; from < doomed.size(); from += 500) {
      removed += delete(doomed.subList(from, Math.min(doomed.size(), from + 500)));
    }
    return removed;
  }

  /** Deletes the nodes in one {@code multi}, or one by one when another pruner took some first. */
  private int delete(List<String> nodes) {
    try {
      session.multi(nodes.stream().map(n -> Op.delete(n, -1)).toList());
      return nodes.size();
    } catch (KeeperException.NoNodeException e) {
      int removed = 0;
      for (String node : nodes) {
        try {
          session.call(
              () -> {
                session.zk().delete(node, -1);
                return null;
              });
          removed++;
        } catch (KeeperException.NoNodeException gone) {
          // deleted by another pruner
        } catch (KeeperException again) {
          throw session.failure(again);
        }
      }
      return removed;
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  @Override
  public List<ExecutionRecord> recent(String job, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    paths.ensureLayout(session);
    List<String> jobs = job == null ? children(paths.history()) : List.of(LeaseNames.require(job));
    List<String> toRead = new ArrayList<>();
    for (String j : jobs) {
      List<String> records = children(paths.history(j));
      for (int i = records.size() - 1; i >= Math.max(0, records.size() - limit); i--) {
        toRead.add(paths.history(j) + "/" + records.get(i));
      }
    }
    if (toRead.isEmpty()) {
      return List.of();
    }
    Map<Long, ExecutionRecord> byZxid = new TreeMap<>(Comparator.reverseOrder());
    List<OpResult> read = session.read(toRead);
    for (OpResult r : read) {
      if (statOf(r) != null) {
        byZxid.put(statOf(r).getCzxid(), decode(dataOf(r)));
      }
    }
    // the latest written, newest first by when the run started, as every store orders history
    // (a stable sort: records that started in the same millisecond stay newest-written first)
    return byZxid.values().stream()
        .limit(limit)
        .sorted(Comparator.comparing(ExecutionRecord::startedAt).reversed())
        .toList();
  }

  /** Children sorted by name (for sequential nodes: oldest first); none when the parent is gone. */
  private List<String> children(String parent) {
    try {
      return session.call(() -> session.zk().getChildren(parent, false)).stream().sorted().toList();
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  private static String encode(ExecutionRecord r) {
    return String.join(
        FIELD,
        r.job(),
        r.fireTime().toString(),
        r.node(),
        Long.toString(r.fence()),
        r.trigger().name(),
        r.startedAt().toString(),
        r.finishedAt().toString(),
        // a retry's attempt goes with its outcome ("FAILED@2"): the output must stay the last field
        r.attempt() == 1 ? r.outcome().name() : r.outcome().name() + "@" + r.attempt(),
        r.exitCode() == null ? "" : r.exitCode().toString(),
        r.detail() == null ? NONE : r.detail().replace(FIELD, " "),
        r.output() == null ? NONE : r.output());
  }

  private static ExecutionRecord decode(String data) {
    try {
      // the output is the last field and may hold anything, the separator included; records
      // written before output was kept have ten fields
      String[] f = data.split(FIELD, 11);
      int at = f[7].indexOf('@');
      String outcome = at < 0 ? f[7] : f[7].substring(0, at);
      int attempt = at < 0 ? 1 : Integer.parseInt(f[7].substring(at + 1));
      return new ExecutionRecord(
          f[0],
          Instant.parse(f[1]),
          f[2],
          Long.parseLong(f[3]),
          TriggerKind.valueOf(f[4]),
          Instant.parse(f[5]),
          Instant.parse(f[6]),
          Outcome.valueOf(outcome),
          f[8].isEmpty() ? null : Integer.valueOf(f[8]),
          f[9].equals(NONE) ? null : f[9],
          f.length < 11 || f[10].equals(NONE) ? null : f[10],
          attempt);
    } catch (RuntimeException e) {
      throw new LeaseStoreException("unreadable history record in ZooKeeper: " + e.getMessage(), e);
    }
  }
}
