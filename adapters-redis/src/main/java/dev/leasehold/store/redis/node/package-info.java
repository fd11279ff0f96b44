/**
 * One Redis node as both Redis stores use it: how it is reached ({@link
 * dev.leasehold.store.redis.node.RedisNode} behind a {@link
 * dev.leasehold.store.redis.node.Topology}: standalone, Sentinel or Cluster), the Lua scripts it
 * runs ({@link dev.leasehold.store.redis.node.LuaScript}), the claim script packed and its replies
 * checked ({@link dev.leasehold.store.redis.node.ClaimScript}, {@link
 * dev.leasehold.store.redis.node.Grant}, {@link dev.leasehold.store.redis.node.Replies}), the undo
 * of an attempt and the {@code WAIT} for replicas ({@link
 * dev.leasehold.store.redis.node.ClaimUndo}), and the key layout ({@link
 * dev.leasehold.store.redis.node.LeaseKeys}). It knows neither store: public only so that the
 * single-server store and Redlock can share it.
 */
package dev.leasehold.store.redis.node;
