package dev.leasehold.core.scheduler;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scheduler class that guards its own fields, as five did before the owner took them over: the
 * architecture rules must catch it (ArchitectureRulesCanFailTest). Test code: never in a build.
 */
public final class LocksOfItsOwn {
  private final Object lock = new Object();
  private final AtomicInteger counted = new AtomicInteger();
  private volatile boolean stopped;
  private int value;

  public void set(int next) {
    synchronized (lock) {
      value = next;
    }
    counted.incrementAndGet();
  }

  public boolean stopped() {
    return stopped;
  }
}
