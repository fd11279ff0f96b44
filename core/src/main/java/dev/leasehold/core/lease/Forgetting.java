package dev.leasehold.core.lease;

/**
 * The port of a store that can delete a lease record. A store that has it returns it from {@link
 * dev.leasehold.core.store.StoreBackend#forgetting}; the records of removed jobs and of the
 * self-check's scratch names stay in a store that has not. Specified by the {@code ForgetCases} of
 * the store kit.
 */
public interface Forgetting {

  /**
   * Deletes the lease record of {@code name}, in one atomic step on the store and only when no
   * lease on it is live (on the store's clock) and it is not paused; a held or paused record is
   * kept. The execution history is never touched, and the fence never goes back: the store's
   * high-water mark of the fence (kept apart from the record, or a floor the store raises when it
   * deletes) stays, so a later claim of the same name is given a fence above every fence given
   * before. The watermark goes with the record where the record keeps it: a firing already run
   * could be claimed again, which is why only names no configuration uses (after a long grace) and
   * the self-check's scratch names are forgotten. For a scratch name ({@code
   * _leasehold.self-check.} prefix) the store may delete its high-water mark too: nothing is fenced
   * by it.
   *
   * @return whether a record was deleted (false when there was none, or it is held or paused)
   */
  boolean forget(String name);
}
