package dev.leasehold.app.config;

import java.util.List;
import java.util.Locale;

/**
 * The secrets this project's examples publish, past and present: whoever ran an example unchanged
 * holds one, and so does everyone who read it. One rule for every secret a config names that others
 * could use against the daemon: the admin token (refused at start) and a check's ping key (refused
 * once the admin endpoint listens beyond loopback).
 */
final class ShippedSecrets {
  /** Published in the compose and Kubernetes examples (the admin token) and family.yaml (a key). */
  private static final List<String> PUBLISHED =
      List.of("change-me-to-a-long-random-token", "try-it-on-one-machine-only");

  private ShippedSecrets() {}

  /** Whether {@code secret} is one an example ships, or a {@code change-me} placeholder. */
  static boolean isShipped(String secret) {
    return PUBLISHED.contains(secret) || secret.toLowerCase(Locale.ROOT).contains("change-me");
  }
}
