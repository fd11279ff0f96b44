package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.testing.CliHarness;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad configuration, through the real CLI entry point: {@code validate} and {@code run} both
 * exit 2 with the same single line on stderr naming the file and the field (or line), print no
 * stack trace, and start nothing (the H2 database the file points at is never created).
 */
class ConfigValidationTest {
  private static final String GOOD_JOB = "  - name: ok\n    every: 5s\n    command: [\"true\"]\n";

  @TempDir Path dir;

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        bad("unknown top-level key", "nodes: a\njobs:\n" + GOOD_JOB, "nodes", "unknown key"),
        bad(
            "unknown job key, with a hint",
            "jobs:\n  - name: a\n    crn: \"* * * * *\"\n    command: [\"true\"]\n",
            "jobs[0].crn",
            "did you mean 'cron'"),
        bad(
            "namespace with a capital letter",
            "namespace: Billing\njobs:\n" + GOOD_JOB,
            "namespace",
            "a-z, 0-9 and '-'"),
        bad(
            "namespace longer than 40 characters",
            "namespace: " + "a".repeat(41) + "\njobs:\n" + GOOD_JOB,
            "namespace",
            "1 to 40 characters"),
        bad(
            "namespace with a dot",
            "namespace: billing.eu\njobs:\n" + GOOD_JOB,
            "namespace",
            "starting with a letter or digit"),
        bad(
            "job name too long for its namespace",
            "namespace: billing\njobs:\n"
                + GOOD_JOB
                + "  - name: "
                + "j".repeat(79)
                + "\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[1].name",
            "at most 78 characters in namespace 'billing'"),
        bad("wrong type: jobs is a mapping", "jobs:\n  a: 1\n", "jobs", "expected a list"),
        bad(
            "a job after an unknown job",
            "jobs:\n" + GOOD_JOB + "  - name: verify\n    after: backup\n    command: [\"true\"]\n",
            "jobs[1].after",
            "job 'verify' follows unknown job 'backup'"),
        bad(
            "a cycle of after",
            "jobs:\n"
                + GOOD_JOB
                + "  - name: a\n    after: c\n    command: [\"true\"]\n"
                + "  - name: b\n    after: {job: a}\n    command: [\"true\"]\n"
                + "  - name: c\n    after: {job: b, on: [any]}\n    command: [\"true\"]\n",
            "jobs[1].after",
            "a cycle of after: a -> c -> b -> a"),
        bad(
            "a job after itself",
            "jobs:\n  - name: a\n    after: a\n    command: [\"true\"]\n",
            "jobs[0].after",
            "a cycle of after: a -> a"),
        bad(
            "after with an unknown outcome",
            "jobs:\n"
                + GOOD_JOB
                + "  - name: v\n    after: {job: ok, on: [done]}\n    command: [\"true\"]\n",
            "jobs[1].after.on",
            "expected succeeded, failed or any, got 'done'"),
        bad(
            "after and a cron",
            "jobs:\n"
                + GOOD_JOB
                + "  - name: v\n    after: ok\n    cron: \"* * * * *\"\n    command: [\"true\"]\n",
            "jobs[1]",
            "two schedules"),
        bad(
            "a job names an unknown group",
            "groups:\n  backups:\n    max-concurrent: 1\njobs:\n"
                + GOOD_JOB
                + "  - name: b\n    every: 5s\n    group: nightly\n    command: [\"true\"]\n",
            "jobs[1].group",
            "unknown group 'nightly'; defined: backups"),
        bad(
            "a group without max-concurrent",
            "groups:\n  backups: {}\njobs:\n" + GOOD_JOB,
            "groups.backups.max-concurrent",
            "is required"),
        bad(
            "a group of zero",
            "groups:\n  backups:\n    max-concurrent: 0\njobs:\n" + GOOD_JOB,
            "groups.backups.max-concurrent",
            "from 1 to 100"),
        bad(
            "jitter without unit",
            "jobs:\n  - name: a\n    every: 5s\n    jitter: 3\n    command: [\"true\"]\n",
            "jobs[0].jitter",
            "no unit"),
        bad(
            "wrong type: ttl is a list",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: [1, 2]\n    command: [\"true\"]\n",
            "jobs[0].ttl",
            "expected a single value"),
        bad(
            "wrong type: command is a string",
            "jobs:\n  - name: a\n    every: 5s\n    command: echo hi\n",
            "jobs[0].command",
            "expected a list"),
        bad(
            "wrong type: duration without unit",
            "jobs:\n  - name: a\n    every: 5\n    command: [\"true\"]\n",
            "jobs[0].every",
            "no unit"),
        bad(
            "invalid cron in the third job",
            "jobs:\n"
                + GOOD_JOB
                + "  - name: b\n    cron: \"0 6 * * *\"\n    command: [\"true\"]\n"
                + "  - name: c\n    cron: \"61 6 * * *\"\n    command: [\"true\"]\n",
            "jobs[2].cron",
            "invalid"),
        bad(
            "cron with the wrong number of fields",
            "jobs:\n  - name: a\n    cron: \"* * *\"\n    command: [\"true\"]\n",
            "jobs[0].cron",
            "fields"),
        bad(
            "unknown zone in a job",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    zone: Mars/Olympus\n    command: [\"true\"]\n",
            "jobs[0].zone",
            "unknown zone"),
        bad(
            "unknown default zone",
            "zone: Nowhere/City\njobs:\n" + GOOD_JOB,
            "zone",
            "unknown zone"),
        bad(
            "ttl of zero",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: 0s\n    command: [\"true\"]\n",
            "jobs[0].ttl",
            "greater than 0"),
        bad(
            "lease ttl of zero",
            "lease:\n  ttl: 0ms\njobs:\n" + GOOD_JOB,
            "lease.ttl",
            "greater than 0"),
        bad(
            "renew-every not below ttl",
            "jobs:\n  - name: a\n    every: 5s\n    ttl: 10s\n    renew-every: 10s\n    command: [\"true\"]\n",
            "jobs[0].renew-every",
            "less than the ttl"),
        bad(
            "lease renew-every not below lease ttl",
            "lease:\n  ttl: 10s\n  renew-every: 20s\njobs:\n" + GOOD_JOB,
            "lease.renew-every",
            "less than the ttl"),
        bad(
            "zero interval",
            "jobs:\n  - name: a\n    every: 0s\n    command: [\"true\"]\n",
            "jobs[0].every",
            "greater than 0"),
        bad(
            "duplicate job name",
            "jobs:\n" + GOOD_JOB + GOOD_JOB,
            "jobs[1].name",
            "duplicate job name 'ok'"),
        bad(
            "invalid job name",
            "jobs:\n  - name: \"morning digest!\"\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].name",
            "invalid job name"),
        bad(
            "job name too long",
            "jobs:\n  - name: " + "x".repeat(101) + "\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].name",
            "at most 100"),
        bad(
            "no schedule",
            "jobs:\n  - name: a\n    command: [\"true\"]\n",
            "jobs[0]",
            "no schedule"),
        bad(
            "two schedules",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    every: 5s\n    command: [\"true\"]\n",
            "jobs[0].every",
            "two schedules"),
        bad("no action", "jobs:\n  - name: a\n    every: 5s\n", "jobs[0]", "no action"),
        bad(
            "two actions",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n"
                + "    http: {url: \"http://127.0.0.1:1/\"}\n",
            "jobs[0].http",
            "two actions"),
        bad(
            "unset variable without default",
            "node: ${LEASEHOLD_TEST_SURELY_UNSET}\njobs:\n" + GOOD_JOB,
            "node",
            "LEASEHOLD_TEST_SURELY_UNSET is not set"),
        bad(
            "malformed store URL",
            "store:\n  type: h2\n  url: postgres://somewhere/db\njobs:\n" + GOOD_JOB,
            "store.url",
            "expects"),
        bad(
            "unknown store type",
            "store:\n  type: cassandra\n  url: x\njobs:\n" + GOOD_JOB,
            "store.type",
            "known: "),
        bad(
            "class that is not a job",
            "jobs:\n  - name: a\n    every: 5s\n    class: java.lang.String\n",
            "jobs[0].class",
            "does not implement"),
        bad(
            "class not on the classpath",
            "jobs:\n  - name: a\n    every: 5s\n    class: com.example.Missing\n",
            "jobs[0].class",
            "not found"),
        bad(
            "http url that is not http",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"ftp://x/y\"}\n",
            "jobs[0].http.url",
            "expected http"),
        bad(
            "unknown leasehold header",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " leasehold-headers: {token: X-T}}\n",
            "jobs[0].http.leasehold-headers.token",
            "expected job, fire-time, fence or node"),
        bad(
            "leasehold header name with a space",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " leasehold-headers: {fence: \"X Fence\"}}\n",
            "jobs[0].http.leasehold-headers.fence",
            "expected a header name"),
        bad(
            "leasehold header renamed to one the client sets",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " leasehold-headers: {node: Host}}\n",
            "jobs[0].http.leasehold-headers.node",
            "set by the HTTP client itself"),
        bad(
            "http header the client sets itself",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " headers: {Host: example.org}}\n",
            "jobs[0].http.headers.Host",
            "set by the HTTP client itself"),
        bad(
            "http header name with a space",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " headers: {\"X Token\": a}}\n",
            "jobs[0].http.headers.X Token",
            "not a header name"),
        bad(
            "http header value with a line break",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " headers: {X-Token: \"one\\ntwo\"}}\n",
            "jobs[0].http.headers.X-Token",
            "line break"),
        bad(
            "notifier header the client sets itself",
            "notify:\n  http: {url: \"http://127.0.0.1:1/\", headers: {Content-Length: \"3\"}}\n"
                + "jobs:\n"
                + GOOD_JOB,
            "notify.http.headers.Content-Length",
            "set by the HTTP client itself"),
        bad(
            "env on an http job",
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\"}\n    env: {A: b}\n",
            "jobs[0].env",
            "only applies to command jobs"),
        bad(
            "offset without every",
            "jobs:\n  - name: a\n    cron: \"0 6 * * *\"\n    offset: 1s\n    command: [\"true\"]\n",
            "jobs[0].offset",
            "only applies"),
        bad(
            "admin token too short",
            "admin:\n  token: fifteen-chars-x\njobs:\n" + GOOD_JOB,
            "admin.token",
            "use at least 16"),
        bad(
            "admin allowed-hosts not a host name",
            "admin:\n  allowed-hosts: [\"http://x/\"]\njobs:\n" + GOOD_JOB,
            "admin.allowed-hosts",
            "expected host names"),
        bad("no jobs", "node: a\n", "jobs", "at least one job"),
        bad("empty file", "", null, "the file is empty"),
        bad("only comments", "# nothing here\n", null, "the file is empty"),
        bad(
            "YAML syntax error",
            "jobs:\n  - name: a\n   every: 5s\n",
            "line 3",
            "YAML syntax error"),
        bad(
            "duplicate YAML key",
            "jobs:\n  - name: a\n    name: b\n    every: 5s\n    command: [\"true\"]\n",
            "line 3",
            "Duplicate field 'name'"),
        bad("top level is a list", "- a\n- b\n", null, "expected a mapping"),
        bad(
            "history kept less than a minute",
            "store:\n  history:\n    keep: 30s\njobs:\n" + GOOD_JOB,
            "store.history.keep",
            "at least 1m"),
        bad(
            "history max-per-job not a number",
            "store:\n  history:\n    max-per-job: lots\njobs:\n" + GOOD_JOB,
            "store.history.max-per-job",
            "whole number from 1 to 1000000"),
        bad(
            "unknown history key",
            "store:\n  history:\n    kept: 3d\njobs:\n" + GOOD_JOB,
            "store.history.kept",
            "unknown key"),
        bad(
            "notify on an unknown event",
            "notify:\n  command: [\"true\"]\n  on: [failed, exploded]\njobs:\n" + GOOD_JOB,
            "notify.on",
            "unknown event 'exploded'"),
        bad(
            "a notify message with an unknown placeholder",
            "notify:\n  ntfy: {url: \"https://ntfy.example/family\"}\n"
                + "  message: \"{{job}} {{jobname}}\"\njobs:\n"
                + GOOD_JOB,
            "notify.message",
            "unknown placeholder {{jobname}}"),
        bad(
            "a job's notify http body with an unknown placeholder",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    notify:\n"
                + "      command: [\"true\"]\n      http: {url: \"http://127.0.0.1:9/\","
                + " body: \"{\\\"text\\\": \\\"{{stdout}}\\\"}\"}\n",
            "jobs[0].notify.http.body",
            "unknown placeholder {{stdout}}"),
        bad(
            "a telegram notifier without a chat",
            "notify:\n  telegram: {bot-token: \"123456:AbCdEf\"}\njobs:\n" + GOOD_JOB,
            "notify.telegram.chat-id",
            "is required"),
        bad(
            "an ntfy priority that does not exist",
            "notify:\n  ntfy: {url: \"https://ntfy.example/family\", priority: loud}\njobs:\n"
                + GOOD_JOB,
            "notify.ntfy.priority",
            "expected min, low, default, high, urgent"),
        bad(
            "an email login without TLS",
            "notify:\n  email: {smtp: \"smtp://127.0.0.1:25\", starttls: false, username: u,"
                + " from: \"a@example.org\", to: [\"b@example.org\"]}\njobs:\n"
                + GOOD_JOB,
            "notify.email.starttls",
            "never sent in clear text"),
        bad(
            "an email with credentials in the URL",
            "notify:\n  email: {smtp: \"smtp://u:Pw@127.0.0.1:25\","
                + " from: \"a@example.org\", to: [\"b@example.org\"]}\njobs:\n"
                + GOOD_JOB,
            "notify.email.smtp",
            "expected smtp://host[:port]"),
        bad(
            "retry attempts not a number",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    retry:\n"
                + "      attempts: often\n",
            "jobs[0].retry.attempts",
            "whole number from 1 to 100"),
        bad(
            "retry attempts 0",
            "retry:\n  attempts: 0\njobs:\n" + GOOD_JOB,
            "retry.attempts",
            "whole number from 1 to 100"),
        bad(
            "retry backoff 0",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    retry:\n"
                + "      attempts: 3\n      backoff: 0s\n",
            "jobs[0].retry.backoff",
            "greater than 0"),
        bad(
            "retry backoff without unit",
            "retry:\n  backoff: 30\njobs:\n" + GOOD_JOB,
            "retry.backoff",
            "no unit"),
        bad(
            "retry max-backoff below the backoff",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    retry:\n"
                + "      backoff: 1m\n      max-backoff: 10s\n",
            "jobs[0].retry.max-backoff",
            "must be at least the backoff 1m"),
        bad(
            "unknown retry key",
            "retry:\n  attempt: 3\njobs:\n" + GOOD_JOB,
            "retry.attempt",
            "did you mean 'attempts'"),
        bad(
            "retry is not a mapping",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    retry: 3\n",
            "jobs[0].retry",
            "expected a mapping"),
        bad(
            "an exclusion window whose end is not after its start",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    exclude:\n"
                + "      - {from: \"2026-12-24T18:00:00Z\", to: \"2026-12-24T08:00:00Z\"}\n",
            "jobs[0].exclude[0].to",
            "must be after from"),
        bad(
            "an excluded date that is not a date",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    exclude:\n"
                + "      - {dates: [\"2026-12-25\", \"*-13-01\"]}\n",
            "jobs[0].exclude[0].dates[1]",
            "not a date"),
        bad(
            "a recurring window without its length",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    exclude:\n"
                + "      - {cron: \"0 2 * * SUN\"}\n",
            "jobs[0].exclude[0].for",
            "is required with cron"),
        bad(
            "a window of two kinds",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    exclude:\n"
                + "      - {cron: \"0 2 * * SUN\", for: 2h, dates: [\"*-01-01\"]}\n",
            "jobs[0].exclude[0]",
            "two windows"),
        bad(
            "an unknown calendar",
            "calendars:\n  holidays: [{dates: [\"*-12-25\"]}]\njobs:\n  - name: a\n    every: 5s\n"
                + "    command: [\"true\"]\n    exclude: [holiday]\n",
            "jobs[0].exclude[0]",
            "no calendar 'holiday' under the top-level calendars; known: holidays"),
        bad(
            "an ics file that is not there",
            "calendars:\n  holidays: [{ics: /nonexistent/holidays.ics}]\njobs:\n" + GOOD_JOB,
            "calendars.holidays[0].ics",
            "cannot read /nonexistent/holidays.ics"),
        bad(
            "an ics item in a job's exclude",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    exclude:\n"
                + "      - {ics: /etc/holidays.ics}\n",
            "jobs[0].exclude[0].ics",
            "in a calendar only"),
        bad(
            "end before start",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n"
                + "    start: \"2027-01-01T00:00:00Z\"\n    end: \"2026-01-01T00:00:00Z\"\n",
            "jobs[0].end",
            "is before start"),
        bad(
            "start that is not an instant",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    start: tomorrow\n",
            "jobs[0].start",
            "is not a date-time"),
        bad(
            "an unknown overlap policy",
            "jobs:\n  - name: a\n    every: 5s\n    command: [\"true\"]\n    overlap: queue\n",
            "jobs[0].overlap",
            "expected skip or buffer-one, replace or allow, got 'queue'"),
        bad(
            "notify without a notifier",
            "notify:\n  on: [failed]\njobs:\n" + GOOD_JOB,
            "notify",
            "no notifier; give command or http"),
        bad(
            "two checks of one name",
            "jobs:\n" + GOOD_JOB + "checks:\n" + CHECK + CHECK,
            "checks[1].name",
            "duplicate check name 'nas-scrub' (also checks[0])"),
        bad(
            "a check without a period",
            "jobs:\n" + GOOD_JOB + "checks:\n  - name: c\n    ping-key: " + KEY + "\n",
            "checks[0]",
            "no period; give one of cron, every"),
        bad(
            "a check with both every and cron",
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    every: 1h\n    cron: \"0 3 * * *\"\n"
                + "    ping-key: "
                + KEY
                + "\n",
            "checks[0].every",
            "two periods (cron and every); give exactly one"),
        bad(
            "a check's ping key too short",
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    every: 1h\n    ping-key: s3cr3t-short\n",
            "checks[0].ping-key",
            "too short to resist guessing (12 characters); use at least 16"),
        bad(
            "a check without a ping key",
            "jobs:\n" + GOOD_JOB + "checks:\n  - name: c\n    every: 1h\n",
            "checks[0].ping-key",
            "required"),
        bad(
            "a check notified of an event checks do not make",
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    every: 1h\n    ping-key: "
                + KEY
                + "\n    notify: {command: [\"true\"], on: [missed, succeeded]}\n",
            "checks[0].notify.on",
            "unknown event 'succeeded' for a check; expected failed, missed, recovered"),
        bad(
            "a check's bad cron",
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    cron: \"0 3 * *\"\n    ping-key: "
                + KEY
                + "\n",
            "checks[0].cron",
            ""),
        bad(
            "a check's unknown key",
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    every: 1h\n    grac: 5m\n    ping-key: "
                + KEY
                + "\n",
            "checks[0].grac",
            "did you mean 'grace'"),
        bad(
            "the example's ping key with the admin endpoint beyond loopback",
            "admin:\n  listen: 0.0.0.0:8077\n  token: a-token-of-our-own-0123456789abcdef\n"
                + "jobs:\n"
                + GOOD_JOB
                + "checks:\n  - name: c\n    every: 1h\n    ping-key: try-it-on-one-machine-only\n",
            "checks[0].ping-key",
            "uses the example's ping key while admin.listen is beyond loopback"));
  }

  private static final String KEY = "9f2c1e7a5b3d4c6e8f0a1b2c";
  private static final String CHECK =
      "  - name: nas-scrub\n    every: 1d\n    grace: 2h\n    ping-key: " + KEY + "\n";

  private static Arguments bad(String title, String yaml, String where, String problem) {
    return Arguments.of(title, yaml, where, problem);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void aBadConfigurationExits2WithOneLineNamingTheField(
      String title, String yaml, String where, String problem) throws IOException {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(file, withIsolatedStore(yaml));
    for (String command : new String[] {"validate", "run"}) {
      CliHarness.Result result = new CliHarness().run(command, "--config", file.toString());

      assertThat(result.code()).as(command + " exit code").isEqualTo(2);
      assertThat(result.errLines()).as(command + " stderr").hasSize(1);
      String line = result.errLines().get(0);
      assertThat(line).startsWith(file + ": ").contains(problem).doesNotContain("Exception");
      if (where != null) {
        assertThat(line).startsWith(file + ": " + where);
      }
      assertThat(result.out()).isEmpty();
    }
    assertThat(dir.resolve("db")).as("nothing was started").doesNotExist();
  }

  @Test
  void everyErrorOfAFileIsReportedAtOnceOneLineEachNamingItsField() throws IOException {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(
        file,
        withIsolatedStore(
            "zone: Mars/Olympus\n"
                + "jobs:\n"
                + "  - name: a\n    cron: \"61 * * * *\"\n    command: [\"true\"]\n"
                + "  - name: b\n    every: 5s\n    command: []\n    ttl: 0s\n"
                + GOOD_JOB
                + "  - name: c\n    every: 5s\n    command: [\"true\"]\n    group: nightly\n"
                + "admin:\n  listen: nowhere:port\n"));
    for (String command : new String[] {"validate", "run"}) {
      CliHarness.Result result = new CliHarness().run(command, "--config", file.toString());

      assertThat(result.code()).as(command + " exit code").isEqualTo(2);
      assertThat(result.errLines())
          .as(command + ": one line per error, in file order")
          .hasSize(6)
          .allSatisfy(line -> assertThat(line).startsWith(file + ": "));
      assertThat(String.join("\n", result.errLines()))
          .contains(file + ": zone: unknown zone")
          .contains(file + ": jobs[0].cron: ")
          .contains(file + ": jobs[1].command: ")
          .contains(file + ": jobs[1].ttl: must be greater than 0")
          .contains(file + ": jobs[3].group: unknown group 'nightly'")
          .contains(file + ": admin.listen: ")
          .doesNotContain("Exception");
    }
    assertThat(dir.resolve("db")).as("nothing was started").doesNotExist();
  }

  @Test
  void aHeaderValueThatCannotBeSentIsNotPrinted() throws IOException {
    Path file = dir.resolve("leasehold.yaml");
    Files.writeString(
        file,
        withIsolatedStore(
            "jobs:\n  - name: a\n    every: 5s\n    http: {url: \"http://127.0.0.1:1/\","
                + " headers: {Authorization: \"Bearer S3cretT0ken\\r\\n\"}}\n"));

    CliHarness.Result result = new CliHarness().run("validate", "--config", file.toString());

    assertThat(result.code()).isEqualTo(2);
    assertThat(result.errLines()).hasSize(1);
    assertThat(result.errLines().get(0))
        .contains("jobs[0].http.headers.Authorization", "line break")
        .doesNotContain("S3cretT0ken");
  }

  @Test
  void aMissingFileExits2NamingTheFile() {
    Path file = dir.resolve("absent.yaml");
    for (String command : new String[] {"validate", "run", "status", "history"}) {
      CliHarness.Result result = new CliHarness().run(command, "--config", file.toString());
      assertThat(result.code()).isEqualTo(2);
      assertThat(result.errLines()).containsExactly(file + ": no such file");
    }
  }

  @Test
  void aGoodCheckValidatesAndItsPingKeyIsShownNowhere() throws IOException {
    Path file = dir.resolve("good.yaml");
    Files.writeString(
        file,
        withIsolatedStore(
            "jobs:\n"
                + GOOD_JOB
                + "checks:\n"
                + CHECK
                + "  - name: router-backup\n    cron: \"0 4 * * 1\"\n    ping-key: \"${ROUTER_KEY}\"\n"
                + "    notify: {command: [\"true\"], on: [missed]}\n"));
    CliHarness.Result result =
        new CliHarness()
            .env("ROUTER_KEY", "router-key-0123456789abcdef")
            .run("validate", "--config", file.toString());
    assertThat(result.code()).as(result.err()).isZero();
    assertThat(result.out()).startsWith(file + ": OK, 1 job, 2 checks");
    assertThat(result.out() + result.err())
        .doesNotContain(KEY)
        .doesNotContain("router-key-0123456789abcdef");
  }

  @Test
  void aGoodConfigurationValidatesWithoutTouchingTheStore() throws IOException {
    Path file = dir.resolve("good.yaml");
    Files.writeString(file, withIsolatedStore("jobs:\n" + GOOD_JOB));
    CliHarness.Result result = new CliHarness().run("validate", "--config", file.toString());
    assertThat(result.code()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).startsWith(file + ": OK, 1 job");
    assertThat(dir.resolve("db")).doesNotExist();
  }

  @Test
  void validateConnectReachesTheStore() throws IOException {
    Path file = dir.resolve("good.yaml");
    Files.writeString(file, withIsolatedStore("jobs:\n" + GOOD_JOB));
    CliHarness.Result result =
        new CliHarness().run("validate", "--connect", "--config", file.toString());
    assertThat(result.code()).isZero();
    assertThat(result.out()).contains("(answered), self-check passed");
    assertThat(dir.resolve("db")).exists();
  }

  /** Appends a store on an H2 file under the test's directory (line numbers stay) unless set. */
  private String withIsolatedStore(String yaml) {
    if (yaml.contains("store:") || yaml.isBlank() || yaml.startsWith("#") || yaml.startsWith("-")) {
      return yaml;
    }
    String url = "jdbc:h2:file:" + dir.resolve("db").resolve("leasehold");
    return yaml + "store:\n  type: h2\n  url: " + url + "\n";
  }
}
