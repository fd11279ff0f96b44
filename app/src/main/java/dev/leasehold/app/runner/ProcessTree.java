package dev.leasehold.app.runner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a process and everything it started: SIGTERM to the whole tree, then SIGKILL to whatever is
 * still alive after the grace.
 *
 * <p>Java cannot start a child in a new session or process group without a shell wrapper, so the
 * tree is found through {@link ProcessHandle#descendants()}. It is snapshotted <b>before</b> the
 * first signal: once the parent dies its children are re-parented and no longer show up as its
 * descendants. A second snapshot before SIGKILL catches processes started during the grace.
 */
final class ProcessTree {
  private static final Logger log = LoggerFactory.getLogger(ProcessTree.class);
  private static final long POLL_MILLIS = 50;

  private ProcessTree() {}

  /** Terminates {@code root} and its descendants; returns once all are gone or were SIGKILLed. */
  static void terminate(ProcessHandle root, Duration killGrace) {
    Set<ProcessHandle> tree = snapshot(root);
    tree.forEach(ProcessHandle::destroy); // SIGTERM
    long deadline = System.nanoTime() + killGrace.toNanos();
    while (tree.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      pause();
    }
    if (root.isAlive()) {
      tree.addAll(snapshot(root));
    }
    List<ProcessHandle> survivors = new ArrayList<>();
    for (ProcessHandle p : tree) {
      if (p.isAlive()) {
        survivors.add(p);
        p.destroyForcibly(); // SIGKILL
      }
    }
    if (!survivors.isEmpty()) {
      log.warn(
          "{} process(es) ignored SIGTERM for {} ms and were killed: {}",
          survivors.size(),
          killGrace.toMillis(),
          survivors.stream().map(ProcessHandle::pid).toList());
    }
    try {
      root.onExit().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("process {} did not exit after SIGKILL", root.pid());
    }
  }

  private static Set<ProcessHandle> snapshot(ProcessHandle root) {
    Set<ProcessHandle> tree = new LinkedHashSet<>();
    // children first, so the parent cannot re-spawn them between two signals unnoticed
    root.descendants().forEach(tree::add);
    tree.add(root);
    return tree;
  }

  private static void pause() {
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      // a second stop request while already stopping: keep waiting out the grace
    }
  }
}
