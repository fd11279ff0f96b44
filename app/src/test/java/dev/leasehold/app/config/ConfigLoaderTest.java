package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.scheduler.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** What a good file turns into: defaults, overrides, durations, placeholders, actions. */
class ConfigLoaderTest {
  @TempDir Path dir;

  private DaemonConfig load(String yaml, Map<String, String> env) throws Exception {
    Path file = dir.resolve("c.yaml");
    Files.writeString(file, yaml);
    return new ConfigLoader(env, "host-1").load(file);
  }

  @Test
  void aChecksPingKeyIsASecretNoJobInheritsAndItsNotifierComesFromTheTopLevel() throws Exception {
    String key = "ping-key-from-env-4c2a9e71";
    DaemonConfig c =
        load(
            "zone: Asia/Shanghai\n"
                + "notify: {command: [\"true\"], on: [failed, succeeded, started]}\n"
                + "jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n"
                + "checks:\n  - name: nas-scrub\n    cron: \"0 3 * * SUN\"\n    grace: 6h\n"
                + "    ping-key: ${SCRUB_KEY}\n"
                + "  - name: router\n    every: 1d\n    ping-key: router-key-0123456789\n"
                + "    notify: {}\n",
            Map.of("SCRUB_KEY", key));

    CheckConfig scrub = c.check("nas-scrub").orElseThrow();
    assertThat(scrub.pingKey()).isEqualTo(key);
    assertThat(scrub.definition().grace()).isEqualTo(Duration.ofHours(6));
    assertThat(scrub.definition().describe()).isEqualTo("cron \"0 3 * * SUN\" Asia/Shanghai");
    assertThat(scrub.notifier().on())
        .as("the top-level notifier, with the events a check makes")
        .containsExactly("failed");
    assertThat(c.check("router").orElseThrow().definition().grace())
        .as("the default grace")
        .isEqualTo(Duration.ofMinutes(5));
    assertThat(c.check("router").orElseThrow().notifier()).as("notify: {}").isNull();
    assertThat(scrub.toString()).doesNotContain(key);

    Map<String, String> env = new java.util.HashMap<>(Map.of("SCRUB_KEY", key, "PATH", "/bin"));
    dev.leasehold.app.runner.InheritedEnvironment.withholdSecrets(env);
    assertThat(env).as("what a job or notifier inherits").containsOnlyKeys("PATH");
    assertThat(dev.leasehold.core.store.Redaction.scrub("key " + key)).doesNotContain(key);
  }

  @Test
  void defaultsApplyWhenTheFileSaysLittle() throws Exception {
    DaemonConfig c = load("jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n", Map.of());

    assertThat(c.node()).isEqualTo("host-1");
    assertThat(c.namespace()).as("no namespace: the store's layout as it always was").isNull();
    assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.store().type()).isEqualTo("h2");
    assertThat(c.store().url()).isEqualTo("jdbc:h2:file:./data/leasehold");
    assertThat(c.admin()).isNull();
    assertThat(c.log()).isEqualTo(LogConfig.DEFAULT);
    JobConfig job = c.jobs().get(0);
    assertThat(job.ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.renewEvery()).isNull();
    assertThat(job.timeout()).isNull();
    assertThat(job.misfireGrace()).isNull();
    assertThat(job.schedule()).isEqualTo(Schedule.every(Duration.ofSeconds(1), Duration.ZERO));
    assertThat(((JobAction.Command) job.action()).killGrace()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void afterIsAJobNameOrAJobWithTheOutcomesItFollows() throws Exception {
    DaemonConfig c =
        load(
            "jobs:\n"
                + "  - {name: backup, cron: \"0 2 * * *\", command: [\"true\"]}\n"
                + "  - {name: verify, after: backup, command: [\"true\"]}\n"
                + "  - {name: alarm, after: {job: backup, on: [failed]}, command: [\"true\"]}\n"
                + "  - {name: log, after: {job: verify, on: [succeeded, failed]}, command: [\"true\"]}\n",
            Map.of());
    assertThat(c.job("verify").orElseThrow().schedule())
        .isEqualTo(new dev.leasehold.core.schedule.AfterSchedule("backup"));
    assertThat(c.job("alarm").orElseThrow().schedule().describe())
        .isEqualTo("after backup on failed");
    assertThat(c.job("log").orElseThrow().schedule().describe())
        .isEqualTo("after verify on succeeded,failed");
  }

  @Test
  void groupsAndJitterAreRead() throws Exception {
    DaemonConfig c =
        load(
            "groups:\n  backups:\n    max-concurrent: 2\n  reports: {max-concurrent: 1}\n"
                + "jobs:\n"
                + "  - name: a\n    every: 1m\n    group: backups\n    jitter: 30s\n"
                + "    command: [\"true\"]\n"
                + "  - name: b\n    every: 1m\n    command: [\"true\"]\n",
            Map.of());
    assertThat(c.groups()).containsExactlyInAnyOrderEntriesOf(Map.of("backups", 2, "reports", 1));
    assertThat(c.job("a").orElseThrow().group()).isEqualTo("backups");
    assertThat(c.job("a").orElseThrow().jitter()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(c.job("a").orElseThrow().schedule().describe()).isEqualTo("every 1m jitter 30s");
    assertThat(c.job("b").orElseThrow().group()).isNull();
    assertThat(c.job("b").orElseThrow().jitter()).isNull();
  }

  @Test
  void retryIsOffByDefaultAndTheTopLevelRetryIsEveryJobsDefaultKeyByKey() throws Exception {
    DaemonConfig c =
        load(
            "retry:\n  attempts: 3\n  backoff: 30s\njobs:\n"
                + "  - name: a\n    every: 1m\n    command: [\"true\"]\n"
                + "  - name: b\n    every: 1m\n    command: [\"true\"]\n"
                + "    retry: {backoff: 1s, max-backoff: 4s}\n"
                + "  - name: c\n    every: 1m\n    command: [\"true\"]\n"
                + "    retry: {attempts: 1}\n",
            Map.of());
    assertThat(c.jobs().get(0).retry())
        .isEqualTo(new RetryPolicy(3, Duration.ofSeconds(30), Duration.ofMinutes(10)));
    assertThat(c.jobs().get(1).retry())
        .isEqualTo(new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(4)));
    assertThat(c.jobs().get(2).retry().retries()).isFalse();

    DaemonConfig plain =
        load("jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n", Map.of());
    assertThat(plain.jobs().get(0).retry()).isEqualTo(RetryPolicy.NONE);
    assertThat(RetryPolicy.NONE.attempts()).isEqualTo(1);
  }

  @Test
  void theNamespaceIsReadAndABlankOneMeansNone() throws Exception {
    String jobs = "jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n";
    assertThat(load("namespace: billing-eu\n" + jobs, Map.of()).namespace())
        .isEqualTo("billing-eu");
    assertThat(load("namespace: ${NS}\n" + jobs, Map.of("NS", "team-7")).namespace())
        .isEqualTo("team-7");
    assertThat(load("namespace: ${NS:-}\n" + jobs, Map.of()).namespace()).isNull();
  }

  @Test
  void durationsReadAsPeopleWriteThem() throws Exception {
    DaemonConfig c =
        load(
            "shutdown-grace: 1h\njobs:\n  - name: a\n    every: 500ms\n    ttl: 5m\n"
                + "    renew-every: 30s\n    timeout: 1h30m\n    misfire-grace: 0s\n"
                + "    kill-grace: 2s\n    command: [\"true\"]\n",
            Map.of());

    JobConfig job = c.jobs().get(0);
    assertThat(c.shutdownGrace()).isEqualTo(Duration.ofHours(1));
    assertThat(job.schedule()).isEqualTo(Schedule.every(Duration.ofMillis(500), Duration.ZERO));
    assertThat(job.ttl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(job.renewEvery()).isEqualTo(Duration.ofSeconds(30));
    assertThat(job.timeout()).isEqualTo(Duration.ofMinutes(90));
    assertThat(job.misfireGrace()).isZero();
    assertThat(((JobAction.Command) job.action()).killGrace()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void leaseDefaultsApplyToJobsThatDoNotOverrideThem() throws Exception {
    DaemonConfig c =
        load(
            "lease:\n  ttl: 60s\n  renew-every: 15s\njobs:\n"
                + "  - name: a\n    every: 1s\n    command: [\"true\"]\n"
                + "  - name: b\n    every: 1s\n    ttl: 9s\n    command: [\"true\"]\n",
            Map.of());

    assertThat(c.jobs().get(0).ttl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.jobs().get(0).renewEvery()).isEqualTo(Duration.ofSeconds(15));
    // a job with its own ttl gets ttl/3, not a renew interval meant for another ttl
    assertThat(c.jobs().get(1).ttl()).isEqualTo(Duration.ofSeconds(9));
    assertThat(c.jobs().get(1).renewEvery()).isNull();
  }

  @Test
  void placeholdersAreResolvedBeforeValuesAreInterpreted() throws Exception {
    DaemonConfig c =
        load(
            "node: ${NODE}\nstore:\n  type: ${STORE_TYPE:-mariadb}\n"
                + "  url: jdbc:mariadb://${DB_HOST:-127.0.0.1}:3306/test\n"
                + "  password: ${DB_PASSWORD}\njobs:\n"
                + "  - name: a\n    every: ${EVERY:-2s}\n    command: [\"echo\", \"${GREETING}\"]\n",
            Map.of("NODE", "gateway-2", "DB_PASSWORD", "pw", "GREETING", "hello"));

    assertThat(c.node()).isEqualTo("gateway-2");
    assertThat(c.store().type()).isEqualTo("mariadb");
    assertThat(c.store().url()).isEqualTo("jdbc:mariadb://127.0.0.1:3306/test");
    assertThat(c.store().password()).isEqualTo("pw");
    assertThat(c.store().toString()).doesNotContain("pw,");
    assertThat(c.jobs().get(0).schedule())
        .isEqualTo(Schedule.every(Duration.ofSeconds(2), Duration.ZERO));
    assertThat(((JobAction.Command) c.jobs().get(0).action()).argv())
        .containsExactly("echo", "hello");
  }

  @Test
  void thePasswordCanComeFromAFile() throws Exception {
    Path secret = dir.resolve("db.pass");
    Files.writeString(secret, "from-file\n");
    DaemonConfig c =
        load(
            "store:\n  type: postgres\n  url: jdbc:postgresql://127.0.0.1:5432/test\n"
                + "  password-file: "
                + secret
                + "\njobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n",
            Map.of());

    assertThat(c.store().password()).isEqualTo("from-file");
  }

  @Test
  void aPasswordFileOthersMayReadIsAcceptedWithAWarningNamingIt() throws Exception {
    Path secret = dir.resolve("open.pass");
    Files.writeString(secret, "from-open-file\n");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
    Logger logger = (Logger) LoggerFactory.getLogger(ConfigLoader.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      DaemonConfig c =
          load(
              "store:\n  type: postgres\n  url: jdbc:postgresql://127.0.0.1:5432/test\n"
                  + "  password-file: "
                  + secret
                  + "\njobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n",
              Map.of());

      assertThat(c.store().password()).isEqualTo("from-open-file");
      assertThat(logged.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .anySatisfy(m -> assertThat(m).contains(secret.toString(), "every user", "0600"));
    } finally {
      logger.detachAppender(logged);
    }
  }

  @Test
  void cronJobsUseTheirZoneOrTheDefaultZone() throws Exception {
    DaemonConfig c =
        load(
            "zone: Asia/Shanghai\njobs:\n"
                + "  - name: digest\n    cron: \"30 6 * * *\"\n    command: [\"true\"]\n"
                + "  - name: nightly\n    cron: \"0 2 * * *\"\n    zone: UTC\n    command: [\"true\"]\n",
            Map.of());

    Instant midnightUtc = Instant.parse("2026-11-30T00:00:00Z");
    assertThat(c.jobs().get(0).schedule().nextAfter(midnightUtc))
        .contains(Instant.parse("2026-11-30T22:30:00Z")); // 06:30 on Dec 1st in Shanghai
    assertThat(c.jobs().get(1).schedule()).isEqualTo(Schedule.cron("0 2 * * *", ZoneId.of("UTC")));
  }

  @Test
  void httpAndClassActionsAndAdminAndLogAreRead() throws Exception {
    DaemonConfig c =
        load(
            "admin:\n  listen: 0.0.0.0:9000\n  token: t0k-0123456789abcdef\nlog:\n  format: json\n  level: debug\n"
                + "jobs:\n  - name: report\n    at: 2026-11-30T18:00:00+08:00\n"
                + "    http:\n      method: post\n      url: http://127.0.0.1:8080/report\n"
                + "      headers: {X-A: b}\n      body: hi\n"
                + "      leasehold-headers: {fence: X-Fence}\n"
                + "  - name: java\n    every: 1m\n    class: "
                + RecordingJobForConfig.class.getName()
                + "\n",
            Map.of());

    assertThat(c.admin().listen().getHostString()).isEqualTo("0.0.0.0");
    assertThat(c.admin().listen().getPort()).isEqualTo(9000);
    assertThat(c.admin().token()).isEqualTo("t0k-0123456789abcdef");
    assertThat(c.admin().toString()).doesNotContain("t0k");
    assertThat(c.log()).isEqualTo(new LogConfig(true, "DEBUG"));
    assertThat(c.jobs().get(0).schedule())
        .isEqualTo(Schedule.at(Instant.parse("2026-11-30T10:00:00Z")));
    JobAction.Http http = (JobAction.Http) c.jobs().get(0).action();
    assertThat(http.method()).isEqualTo("POST");
    assertThat(http.headers()).isEqualTo(Map.of("X-A", "b"));
    assertThat(http.body()).isEqualTo("hi");
    assertThat(http.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(http.leaseholdHeaders())
        .containsEntry("fence", "X-Fence")
        .containsEntry("job", "X-Leasehold-Job")
        .hasSize(4);
    assertThat(c.jobs().get(1).action())
        .isEqualTo(new JobAction.JavaClass(RecordingJobForConfig.class.getName()));
    assertThat(c.jobNames()).isEqualTo(List.of("report", "java"));
  }

  @Test
  void theLogFormatVariableOverridesTheFile() throws Exception {
    DaemonConfig c =
        load(
            "jobs:\n  - name: a\n    every: 1s\n    command: [\"true\"]\n",
            Map.of("LEASEHOLD_LOG_FORMAT", "json"));
    assertThat(c.log().json()).isTrue();
  }

  /** A job class for the class action. */
  public static class RecordingJobForConfig implements dev.leasehold.core.job.Job {
    @Override
    public void execute(dev.leasehold.core.job.JobContext context) {}
  }
}
