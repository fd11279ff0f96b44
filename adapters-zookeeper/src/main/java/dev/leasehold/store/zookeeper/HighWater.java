package dev.leasehold.store.zookeeper;

import static dev.leasehold.store.zookeeper.ZooKeeperSession.dataOf;
import static dev.leasehold.store.zookeeper.ZooKeeperSession.statOf;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The node {@code highwater/<name>} as read: the highest firing claimed or recorded as paused
 * (epoch milliseconds; empty when the name was only acquired), kept apart from {@code jobs/<name>}
 * so that deleting that node by hand sends nothing back. It is written, version-checked, in the
 * same {@code multi} as every claim, acquisition and paused claim, never lowered (a catch-up resume
 * lowers the watermark in {@code jobs/<name>} alone), so its {@code mzxid} is the fence of the last
 * grant and its firing is at or past the watermark.
 *
 * @param stat the node's stat, or null when it does not exist
 * @param firing the firing it holds, or null
 */
record HighWater(Stat stat, Instant firing) {

  static HighWater of(OpResult read) {
    Stat stat = statOf(read);
    String data = dataOf(read);
    Instant firing =
        data == null || data.isBlank() ? null : Instant.ofEpochMilli(Long.parseLong(data.strip()));
    return new HighWater(stat, firing);
  }

  boolean exists() {
    return stat != null;
  }

  /**
   * The write that raises the node to {@code watermark} (or keeps the higher firing it holds):
   * created when missing, else version-checked against this read.
   */
  Op raise(String path, Instant watermark, List<ACL> acl) {
    Instant highest =
        firing == null || watermark != null && watermark.isAfter(firing) ? watermark : firing;
    byte[] data =
        (highest == null ? "" : Long.toString(highest.toEpochMilli()))
            .getBytes(StandardCharsets.UTF_8);
    return stat == null
        ? Op.create(path, data, acl, CreateMode.PERSISTENT)
        : Op.setData(path, data, stat.getVersion());
  }
}
