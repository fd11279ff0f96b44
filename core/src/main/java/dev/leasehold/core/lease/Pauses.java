package dev.leasehold.core.lease;

/**
 * The port of a store that keeps cluster-wide pauses. A store that has it returns it from {@link
 * dev.leasehold.core.store.StoreBackend#pauses}; the claims of a store that does not never answer
 * {@link ClaimResult.Kind#PAUSED}. Specified by the {@code PauseCases} of the store kit.
 */
public interface Pauses {

  /**
   * Pauses {@code name} cluster-wide, in one atomic step on the store. Once this has returned,
   * every claim of a firing of {@code name}, from any client, is decided against the pause in the
   * claim's own atomic step: a firing newer than the watermark answers {@link
   * ClaimResult.Kind#PAUSED} (the watermark moves to it, so exactly one claimant records it, but no
   * lease starts and the fence stays), an older one {@link ClaimResult.Kind#ALREADY_RUN}; never
   * {@link ClaimResult.Kind#WON}. A live lease is left alone: the run it guards finishes, unless
   * {@code stopRunning}, which makes the store refuse every renewal of {@code name} while the pause
   * lasts (the holder stops as on a lost lease). {@link LeaseStore#acquire} is not affected: a
   * manual trigger is an explicit request. A repeated pause keeps the first {@code since} and
   * replaces the rest.
   *
   * @param by the node or user that pauses (validated as a holder)
   * @param reason free text, at most {@link Pause#MAX_REASON} characters, or {@code null}
   * @return the pause as stored
   */
  Pause pause(String name, String by, String reason, boolean stopRunning);

  /**
   * Ends the pause of {@code name} in one atomic step. With {@code catchUp}, when the watermark
   * stands at a firing that a claim recorded as paused, the same step lowers the watermark by one
   * millisecond: that firing, and no earlier one, can then be claimed once more (once, since the
   * claim moves the watermark back to it). Without {@code catchUp} every firing recorded as paused
   * stays spent.
   *
   * @return whether {@code name} was paused
   */
  boolean resume(String name, boolean catchUp);
}
