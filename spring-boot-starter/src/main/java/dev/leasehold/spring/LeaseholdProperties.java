package dev.leasehold.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code leasehold.*} in the application's configuration, besides the store ({@link
 * LeaseholdStoreProperties}). Unknown keys here are ignored, so the {@code LEASEHOLD_*} variables
 * the daemon hands its jobs do not stop an application that the daemon runs.
 */
@ConfigurationProperties(prefix = "leasehold")
public class LeaseholdProperties {
  /** This replica's name as lease holder; default {@code hostname-pid}. */
  private String node;

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }
}
