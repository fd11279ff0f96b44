package dev.leasehold.packaging;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * podman as the tests run it on this kind of machine: as root, with the runc runtime (crun refuses
 * its cgroup layout) and no default ulimits (setrlimit fails otherwise), both set in a
 * containers.conf of the test's own (CONTAINERS_CONF), so nothing of the machine is changed.
 */
final class Podman {
  static final String BASE_IMAGE = "localhost/leasehold-test-base:bookworm-jre17";

  private final Map<String, String> env;

  Podman(Path buildDir) {
    try {
      Path conf = buildDir.resolve("podman/containers.conf");
      Files.createDirectories(conf.getParent());
      Files.writeString(
          conf, "[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = \"runc\"\n");
      env = Map.of("CONTAINERS_CONF", conf.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Map<String, String> env() {
    return env;
  }

  Commands.Result run(Duration timeout, String... args) {
    List<String> command = new ArrayList<>();
    command.add("podman");
    command.addAll(List.of(args));
    return Commands.run(command, env, null, timeout);
  }

  String ok(Duration timeout, String... args) {
    List<String> command = new ArrayList<>(List.of("podman"));
    command.addAll(List.of(args));
    return run(timeout, args).expectSuccess(command).output().strip();
  }

  /**
   * The local stand-in for the public JRE base: kept in the podman store between runs, made from
   * scratch (debootstrap, a few minutes) when it is missing.
   */
  void ensureBaseImage(Path script) {
    if (run(Duration.ofMinutes(1), "image", "exists", BASE_IMAGE).exit() == 0) {
      return;
    }
    Commands.run(List.of("bash", script.toString(), BASE_IMAGE), env, null, Duration.ofMinutes(20))
        .expectSuccess(List.of(script.toString()));
  }

  void removeContainers(String... names) {
    List<String> args = new ArrayList<>(List.of("rm", "-f", "-t", "0"));
    args.addAll(List.of(names));
    run(Duration.ofMinutes(2), args.toArray(String[]::new));
  }
}
