package dev.leasehold.app.config;

import dev.leasehold.core.schedule.Schedule;
import java.time.Duration;

/**
 * One job of the configuration file.
 *
 * @param name the job (and lease) name
 * @param schedule when it fires
 * @param ttl lease time to live
 * @param renewEvery how often the watchdog renews the lease, or {@code null} for ttl/3
 * @param timeout how long one execution may run, or {@code null} for no limit
 * @param misfireGrace how late a missed firing may still run, or {@code null} for the default
 * @param action what it runs
 */
public record JobConfig(
    String name,
    Schedule schedule,
    Duration ttl,
    Duration renewEvery,
    Duration timeout,
    Duration misfireGrace,
    JobAction action) {}
