package dev.leasehold.core.scheduler;

/** A scheduled task that can be called off. */
@FunctionalInterface
public interface Cancellable {
  void cancel();
}
