package dev.leasehold.store.zookeeper;

import dev.leasehold.core.lease.NodeCodec;
import dev.leasehold.core.lease.NodeRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Node records on ZooKeeper: persistent znodes {@code <base>/nodes/<node id in hex>} holding {@link
 * NodeCodec}'s line. Not ephemeral: a daemon's session outlives neither a crash nor a restart, and
 * a record must stay visible as stale for a while after its daemon is gone. TTL znodes need an
 * option most ensembles do not set, so expiry is checked on read: {@link #read} deletes the records
 * past their {@link NodeRecord#keptUntil} (version-checked, so a record refreshed meanwhile stays)
 * and returns the rest.
 */
final class ZooKeeperNodes {
  private final ZooKeeperSession session;
  private final String parent;

  ZooKeeperNodes(ZooKeeperSession session, ZooKeeperPaths paths) {
    this.session = session;
    this.parent = paths.nodes();
  }

  private String path(String nodeId) {
    return parent + "/" + HexFormat.of().formatHex(nodeId.getBytes(StandardCharsets.UTF_8));
  }

  void publish(NodeRecord record, Duration ttl) {
    String path = path(record.nodeId());
    byte[] data = NodeCodec.encode(record.publishedFor(ttl)).getBytes(StandardCharsets.UTF_8);
    try {
      for (int attempt = 0; attempt < 3; attempt++) {
        try {
          session.call(() -> session.zk().setData(path, data, -1));
          return;
        } catch (KeeperException.NoNodeException e) {
          session.ensure(parent);
        }
        try {
          session.call(() -> session.zk().create(path, data, session.acl(), CreateMode.PERSISTENT));
          return;
        } catch (KeeperException.NodeExistsException e) {
          // created by another client meanwhile: set it
        }
      }
    } catch (KeeperException e) {
      throw session.failure(e);
    }
  }

  List<NodeRecord> read() {
    List<String> children;
    try {
      children = session.call(() -> session.zk().getChildren(parent, false));
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (KeeperException e) {
      throw session.failure(e);
    }
    Instant now = Instant.now();
    List<NodeRecord> out = new ArrayList<>();
    for (String child : children) {
      String path = parent + "/" + child;
      Stat stat = new Stat();
      byte[] data;
      try {
        data = session.call(() -> session.zk().getData(path, false, stat));
      } catch (KeeperException.NoNodeException e) {
        continue;
      } catch (KeeperException e) {
        throw session.failure(e);
      }
      NodeRecord r = NodeCodec.decode(new String(data, StandardCharsets.UTF_8));
      if (r != null && now.isBefore(r.keptUntil())) {
        out.add(r);
      } else {
        try {
          session.call(
              () -> {
                session.zk().delete(path, stat.getVersion());
                return null;
              });
        } catch (KeeperException e) {
          // refreshed or deleted by another reader meanwhile: nothing to clean
        }
      }
    }
    out.sort(Comparator.comparing(NodeRecord::nodeId));
    return out;
  }
}
