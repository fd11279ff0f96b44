package dev.leasehold.app.reload;

import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.app.config.JobConfig;
import dev.leasehold.app.config.KeyPaths;
import java.util.Objects;
import java.util.Optional;

/**
 * What a reload cannot apply: the node id, the store (its connection and {@code store.history}),
 * the admin endpoint and logging are set up once, at start. A file that changes one of them is
 * refused whole, naming the first such key; values are never shown (they may hold secrets).
 */
final class RestartNeeded {
  private RestartNeeded() {}

  /** The one-line reason {@code next} needs a restart, or empty when a reload can apply it. */
  static Optional<String> reason(DaemonConfig now, DaemonConfig next, boolean notifierRunning) {
    String key = null;
    if (!Objects.equals(now.node(), next.node())) {
      key = KeyPaths.NODE;
    } else if (!Objects.equals(now.store(), next.store())) {
      key = KeyPaths.STORE;
    } else if (!Objects.equals(now.history(), next.history())) {
      key = KeyPaths.STORE_HISTORY;
    } else if (!Objects.equals(now.admin(), next.admin())) {
      key = KeyPaths.ADMIN;
    } else if (!Objects.equals(now.log(), next.log())) {
      key = KeyPaths.LOG;
    } else if (!Objects.equals(now.namespace(), next.namespace())) {
      key = KeyPaths.NAMESPACE; // the store was opened in it
    } else if (!Objects.equals(now.groups(), next.groups())) {
      key = KeyPaths.GROUPS; // the scheduler counts slots by the groups it started with
    }
    if (key != null) {
      return Optional.of(key + ": changed; that needs a restart");
    }
    if (!notifierRunning) {
      for (int i = 0; i < next.jobs().size(); i++) {
        JobConfig job = next.jobs().get(i);
        if (job.notifier() != null) {
          return Optional.of(
              KeyPaths.jobNotify(i)
                  + ": the daemon started without any notify; a first notify needs a"
                  + " restart");
        }
      }
    }
    return Optional.empty();
  }
}
