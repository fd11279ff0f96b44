package dev.leasehold.core.time;

/** A scheduled task that can be called off. */
@FunctionalInterface
public interface Cancellable {
  void cancel();
}
