package dev.leasehold.app.reload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.ConfigLoader;
import dev.leasehold.app.config.DaemonConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reload may apply: the same file read twice is the same configuration (so unchanged jobs
 * are not reported changed), jobs and shutdown-grace reload, and node, store, store.history, admin
 * and log need a restart, named without their values.
 */
class RestartNeededTest {
  private static final String STORE =
      "store:\n  type: postgres\n  url: jdbc:postgresql://db/leasehold\n  password: s3cret-pass\n";
  private static final String JOBS =
      "jobs:\n  - name: a\n    every: 1s\n    command: [sh, -c, 'echo hi']\n"
          + "    env: {A: b}\n    notify: {command: ['true'], on: [failed]}\n";
  private static final String ADMIN =
      "admin:\n  listen: 127.0.0.1:0\n  token: tok-0123456789abcdef\n";

  @TempDir Path dir;
  private int files;

  private DaemonConfig load(String yaml) throws Exception {
    Path file = dir.resolve("c" + files++ + ".yaml");
    Files.writeString(file, yaml);
    return new ConfigLoader(Map.of(), "host-1").load(file);
  }

  private DaemonConfig base() throws Exception {
    return load("node: n1\nshutdown-grace: 10s\n" + STORE + ADMIN + JOBS);
  }

  @Test
  void theSameFileReadTwiceNeedsNothingAndItsJobsAreEqual() throws Exception {
    DaemonConfig first = base();
    DaemonConfig again = base();

    assertThat(RestartNeeded.reason(first, again, true)).isEmpty();
    assertThat(again.jobs()).isEqualTo(first.jobs());
  }

  @Test
  void jobsAndShutdownGraceReload() throws Exception {
    DaemonConfig changed =
        load(
            "node: n1\nshutdown-grace: 1m\n"
                + STORE
                + ADMIN
                + JOBS.replace("every: 1s", "every: 5s")
                + "  - name: b\n    cron: '* * * * *'\n    command: ['true']\n");

    assertThat(RestartNeeded.reason(base(), changed, true)).isEmpty();
  }

  @Test
  void eachKeySetUpAtStartNeedsARestartAndItsValueIsNotShown() throws Exception {
    DaemonConfig base = base();
    Map<String, String> edits =
        Map.of(
            "node",
            "node: n2\nshutdown-grace: 10s\n" + STORE + ADMIN + JOBS,
            "store",
            "node: n1\nshutdown-grace: 10s\n"
                + STORE.replace("s3cret-pass", "other-pass")
                + ADMIN
                + JOBS,
            "store.history",
            "node: n1\nshutdown-grace: 10s\n" + STORE + "  history:\n    keep: 2d\n" + ADMIN + JOBS,
            "admin",
            "node: n1\nshutdown-grace: 10s\n" + STORE + ADMIN.replace("tok-", "new-") + JOBS,
            "log",
            "node: n1\nshutdown-grace: 10s\n" + STORE + ADMIN + "log:\n  level: DEBUG\n" + JOBS,
            "namespace",
            "node: n1\nnamespace: billing\nshutdown-grace: 10s\n" + STORE + ADMIN + JOBS,
            "groups",
            "node: n1\nshutdown-grace: 10s\ngroups: {backups: {max-concurrent: 1}}\n"
                + STORE
                + ADMIN
                + JOBS);
    for (Map.Entry<String, String> edit : edits.entrySet()) {
      assertThat(RestartNeeded.reason(base, load(edit.getValue()), true))
          .as(edit.getKey())
          .hasValue(edit.getKey() + ": changed; that needs a restart");
    }
  }

  @Test
  void aFirstNotifyNeedsARestartWhenTheDaemonStartedWithoutOne() throws Exception {
    DaemonConfig without =
        load("node: n1\n" + STORE + "jobs:\n  - name: a\n    every: 1s\n    command: ['true']\n");
    DaemonConfig with = load("node: n1\n" + STORE + JOBS);

    assertThat(RestartNeeded.reason(without, with, false))
        .hasValueSatisfying(r -> assertThat(r).startsWith("jobs[0].notify: ").contains("restart"));
    assertThat(RestartNeeded.reason(without, with, true)).isEmpty();
  }
}
