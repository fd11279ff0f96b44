/**
 * Redlock: a lease held by a majority of 3 or 5 independent Redis masters ({@link
 * dev.leasehold.store.redis.redlock.RedlockLeaseStore}); one claim or acquisition ({@link
 * dev.leasehold.store.redis.redlock.RedlockClaim}, which also holds round 2 and the validity
 * check), a batch of claims ({@link dev.leasehold.store.redis.redlock.RedlockBatch}), and one call
 * on every node within a deadline ({@link dev.leasehold.store.redis.redlock.Quorum}). Built on
 * {@link dev.leasehold.store.redis.node}.
 */
package dev.leasehold.store.redis.redlock;
