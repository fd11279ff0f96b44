package dev.leasehold.blackbox;

import java.util.ArrayList;
import java.util.List;

/**
 * One daemon's {@link Relay}s, one per store node (a single server has one, Redlock three), cut,
 * held and healed together: the daemon's side of a partition.
 */
final class Relays implements AutoCloseable {
  private final List<Relay> relays;

  private Relays(List<Relay> relays) {
    this.relays = relays;
  }

  /** A relay named {@code name} to each of {@code storePorts} on 127.0.0.1. */
  static Relays to(String name, int... storePorts) {
    List<Relay> relays = new ArrayList<>();
    for (int port : storePorts) {
      relays.add(Relay.to(name, port));
    }
    return new Relays(relays);
  }

  /** The daemon's store section with every store node's address replaced by its relay's. */
  String through(String storeYaml) {
    String yaml = storeYaml;
    for (Relay relay : relays) {
      yaml = relay.through(yaml);
    }
    return yaml;
  }

  void cut() {
    relays.forEach(Relay::cut);
  }

  void holdAnswers() {
    relays.forEach(Relay::holdAnswers);
  }

  void heal() {
    relays.forEach(Relay::heal);
  }

  long heldBytes() {
    return relays.stream().mapToLong(Relay::heldBytes).sum();
  }

  @Override
  public void close() {
    relays.forEach(Relay::close);
  }
}
