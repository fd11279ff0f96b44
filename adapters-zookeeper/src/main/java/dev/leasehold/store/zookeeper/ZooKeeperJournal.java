package dev.leasehold.store.zookeeper;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalArguments;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.lease.LeaseStoreException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;

/**
 * The journal on ZooKeeper: an entry is the persistent znode {@code <base>/journal/<stream in
 * hex>/<id>} holding its body (the id sorts by time first, {@link JournalArguments}; the stream in
 * hex, since a name may be {@code .} or {@code ..}, which are no path segment). {@code recent}
 * lists the stream's children, sorts them by name and reads the newest {@code limit} in one
 * read-only {@code multi}; {@code prune} deletes the children below the id floor, one by one (a
 * child another client deleted meanwhile is not counted). A key is the znode {@code
 * <base>/journalkeys/<key in hex>}, created with its value: {@code NodeExists} means another
 * client's value, which is read.
 */
final class ZooKeeperJournal implements Journal {
  private final ZooKeeperSession session;
  private final String streams;
  private final String keys;

  ZooKeeperJournal(ZooKeeperSession session, ZooKeeperPaths paths) {
    this.session = session;
    this.streams = paths + "/journal";
    this.keys = paths + "/journalkeys";
  }

  private static String hex(String name) {
    return HexFormat.of().formatHex(name.getBytes(StandardCharsets.UTF_8));
  }

  private String stream(String stream) {
    return streams + "/" + hex(JournalArguments.stream(stream));
  }

  @Override
  public JournalEntry append(String stream, Instant at, String body) {
    JournalEntry entry = JournalArguments.newEntry(stream, at, body);
    String parent = stream(stream);
    String path = parent + "/" + entry.id();
    byte[] data = body.getBytes(StandardCharsets.UTF_8);
    try {
      try {
        session.call(() -> session.zk().create(path, data, session.acl(), CreateMode.PERSISTENT));
      } catch (KeeperException.NoNodeException e) {
        session.ensure(parent);
        session.call(() -> session.zk().create(path, data, session.acl(), CreateMode.PERSISTENT));
      }
    } catch (KeeperException e) {
      throw session.failure(e);
    }
    return entry;
  }

  /** The ids of {@code parent}, newest first; none when the stream was never written. */
  private List<String> ids(String parent) {
    List<String> children;
    try {
      children = session.call(() -> session.zk().getChildren(parent, false));
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException e) {
      throw session.failure(e);
    }
    List<String> ids = new ArrayList<>(children);
    ids.sort(Comparator.reverseOrder());
    return ids;
  }

  @Override
  public List<JournalEntry> recent(String stream, int limit) {
    String parent = stream(stream);
    JournalArguments.limit(limit);
    List<String> ids = ids(parent);
    ids = ids.subList(0, Math.min(limit, ids.size()));
    if (ids.isEmpty()) {
      return List.of();
    }
    List<OpResult> read = session.read(ids.stream().map(id -> parent + "/" + id).toList());
    List<JournalEntry> out = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      if (read.get(i) instanceof OpResult.GetDataResult r) {
        byte[] data = r.getData();
        String body = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        out.add(JournalArguments.entry(stream, ids.get(i), body));
      } // else pruned between the listing and the read
    }
    return List.copyOf(out);
  }

  @Override
  public int prune(String stream, Instant before) {
    String parent = stream(stream);
    String floor = JournalArguments.idFloor(before);
    int deleted = 0;
    for (String id : ids(parent)) {
      if (id.compareTo(floor) >= 0) {
        continue;
      }
      try {
        session.call(
            () -> {
              session.zk().delete(parent + "/" + id, -1);
              return null;
            });
        deleted++;
      } catch (KeeperException.NoNodeException e) {
        // another client pruned it first
      } catch (KeeperException e) {
        throw session.failure(e);
      }
    }
    return deleted;
  }

  @Override
  public String putIfAbsent(String key, String value) {
    String path = keys + "/" + hex(JournalArguments.key(key));
    byte[] data = JournalArguments.value(value).getBytes(StandardCharsets.UTF_8);
    try {
      try {
        create(path, data);
        return value;
      } catch (KeeperException.NodeExistsException e) {
        // another client's value: read it below
      }
      byte[] held = session.call(() -> session.zk().getData(path, false, null));
      return held == null ? "" : new String(held, StandardCharsets.UTF_8);
    } catch (KeeperException.NoNodeException e) {
      throw new LeaseStoreException("ZooKeeper journal key " + key + ": present, then gone", e);
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  private void create(String path, byte[] data) throws KeeperException {
    try {
      session.call(() -> session.zk().create(path, data, session.acl(), CreateMode.PERSISTENT));
    } catch (KeeperException.NoNodeException e) {
      session.ensure(keys);
      session.call(() -> session.zk().create(path, data, session.acl(), CreateMode.PERSISTENT));
    }
  }
}
