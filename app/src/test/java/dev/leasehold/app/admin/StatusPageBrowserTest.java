package dev.leasehold.app.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.daemon.Daemon;
import dev.leasehold.app.testing.Browser;
import dev.leasehold.app.testing.Poll;
import dev.leasehold.app.wiring.PreparedConfig;
import dev.leasehold.app.wiring.StoreModules;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page at {@code /} of a running daemon on embedded H2, rendered and driven in a real
 * headless Chromium. Screenshots are kept in {@code app/target/screenshots/}.
 */
class StatusPageBrowserTest {
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Path SHOTS = Path.of("target", "screenshots");

  @TempDir Path dir;
  private Daemon daemon;
  private CompletableFuture<Integer> running;

  private int start(String admin) throws Exception {
    return start(admin, "");
  }

  /** A daemon with the page's three jobs and {@code extraJobs} (YAML list items). */
  private int start(String admin, String extraJobs) throws Exception {
    Path config = dir.resolve("page.yaml");
    Files.writeString(
        config,
        "node: page-node\nstore:\n  type: h2\n  url: jdbc:h2:file:"
            + dir.resolve("db")
            + "\n"
            + admin
            + "jobs:\n"
            + "  - name: ok-job\n    every: 1s\n    command: [\"true\"]\n"
            + "  - name: broken-job\n    every: 1s\n    command: [\"false\"]\n"
            + "  - name: morning-digest\n    cron: \"30 6 * * *\"\n    zone: Asia/Shanghai\n"
            + "    command: [\"true\"]\n"
            + extraJobs);
    daemon = new Daemon(PreparedConfig.load(config, Map.of(), StoreModules.discover()));
    running =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return daemon.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    Poll.until("the admin endpoint listens", LIMIT, () -> daemon.adminPort().isPresent());
    int port = daemon.adminPort().orElseThrow();
    Poll.until(
        "both a success and a failure are in the history",
        LIMIT,
        () -> {
          String data = get(port, "/api/status");
          return data.contains("\"outcome\" : \"succeeded\"")
              && data.contains("\"outcome\" : \"failed\"");
        });
    return port;
  }

  private static String get(int port, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (Exception e) {
      return "";
    }
  }

  /** Whether status.js has rendered the snapshot (the page itself is static markup). */
  private static boolean rendered(Browser browser) {
    try {
      return browser.script("return document.querySelectorAll('#jobs tbody tr').length;").asInt()
          > 0;
    } catch (Exception e) {
      return false;
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (daemon != null) {
      daemon.shutdown();
      assertThat(running.get(LIMIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    }
  }

  @Test
  void theBrowserShowsJobsOutcomesAndNextFiringsAndFiltersTheHistory() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n");
    try (Browser browser = Browser.start()) {
      browser.open("http://127.0.0.1:" + port + "/");
      Poll.until("the script filled in the page", LIMIT, () -> rendered(browser));
      String jobs = browser.text("#jobs");
      assertThat(jobs).contains("ok-job", "broken-job", "morning-digest");
      assertThat(browser.text("#jobs tr[data-job='morning-digest'] td.next"))
          .contains("06:30:00 Asia/Shanghai")
          .contains("22:30:00 UTC");
      assertThat(browser.text("#jobs tr[data-job='ok-job']")).contains("succeeded");
      assertThat(browser.text("#jobs tr[data-job='broken-job']")).contains("failed");
      assertThat(browser.text("#store-health")).isEqualTo("store answering");
      assertThat(browser.text("#nodes")).contains("page-node (this node)");
      // the node record is published at start; the page shows it at its first or next refresh
      Poll.until(
          "the live replicas section lists this node",
          LIMIT,
          () -> {
            try {
              return String.valueOf(browser.text("#replicas")).contains("page-node (this node)");
            } catch (Exception e) {
              return false;
            }
          });
      assertThat(browser.text("#replicas")).contains("live").contains("hmac:");
      assertThat(browser.text("#replicas-summary")).contains("1 live: page-node");
      assertThat(
              browser
                  .script("return getComputedStyle(document.getElementById('store-health')).color;")
                  .asText())
          .as("the page's own stylesheet applies under the Content-Security-Policy")
          .isEqualTo("rgb(10, 93, 26)");
      assertThat(
              browser
                  .script(
                      "var s = document.createElement('script');"
                          + " s.textContent = 'window.injected = 1;';"
                          + " document.body.appendChild(s); return window.injected === 1;")
                  .asBoolean())
          .as("the Content-Security-Policy refuses inline script")
          .isFalse();
      assertThat(
              browser.script("return document.querySelectorAll('button.trigger').length;").asInt())
          .as("no trigger button without an admin token")
          .isZero();
      browser.screenshot(SHOTS.resolve("status-page.png"));

      browser.script(
          "document.querySelector('select[name=outcome]').value = 'failed'; return null;");
      browser.click("#filters button[type=submit]");
      Poll.until(
          "the filtered page loaded",
          LIMIT,
          () -> {
            try {
              return browser.text("#history caption").contains("outcome failed");
            } catch (Exception e) {
              return false;
            }
          });
      String outcomes =
          browser
              .script(
                  "return Array.from(document.querySelectorAll('#history td.outcome'))"
                      + ".map(function (c) { return c.innerText.trim(); }).join('|');")
              .asText();
      assertThat(outcomes.split("\\|")).isNotEmpty().allMatch(o -> o.endsWith("failed"));
      browser.screenshot(SHOTS.resolve("status-page-failed-only.png"));

      // a reload of a bad file changes nothing and the page says so, with the field
      Path config = dir.resolve("page.yaml");
      Files.writeString(
          config, Files.readString(config).replace("cron: \"30 6 * * *\"", "cron: \"61 6 * * *\""));
      daemon.reload();
      browser.open("http://127.0.0.1:" + port + "/");
      Poll.until("the script filled in the page", LIMIT, () -> rendered(browser));
      assertThat(browser.text("#problems"))
          .contains("last reload failed at")
          .contains("nothing changed")
          .contains("jobs[2].cron");
      assertThat(browser.text("#jobs")).contains("ok-job", "broken-job", "morning-digest");
      browser.screenshot(SHOTS.resolve("status-page-reload-failed.png"));
    }
  }

  /** Whether the overview sections are shown (not a job's view). */
  private static boolean overview(Browser browser) {
    try {
      return !browser
          .script("return document.getElementById('jobs').closest('section').hidden;")
          .asBoolean();
    } catch (Exception e) {
      return false;
    }
  }

  /** Whether the job view shows at least {@code rows} runs. */
  private static boolean runsShown(Browser browser, int rows) {
    try {
      return browser
              .script("return document.querySelectorAll('#job-runs tbody tr').length;")
              .asInt()
          >= rows;
    } catch (Exception e) {
      return false;
    }
  }

  private static boolean shows(Browser browser, String css, String text) {
    try {
      return String.valueOf(browser.text(css)).contains(text);
    } catch (Exception e) {
      return false;
    }
  }

  /** The firing of each run the job view shows, top to bottom. */
  private static List<String> firings(Browser browser) throws Exception {
    return List.of(
        browser
            .script(
                "return Array.from(document.querySelectorAll('#job-runs tbody tr'))"
                    + ".map(function (r) { return r.getAttribute('data-fire'); }).join(' ');")
            .asText()
            .split(" "));
  }

  @Test
  void aJobsViewShowsItsRunsWithOutputAsTextItsRecordAndPagesBack() throws Exception {
    int port =
        start(
            "admin:\n  listen: 127.0.0.1:0\n",
            "  - name: shouty\n    every: 1s\n    command: [\"sh\", \"-c\","
                + " \"echo '<script>window.pwned = 1</script><b>loud</b>'\"]\n");
    // more runs than one page of the view (20), so that it can page back
    Poll.until(
        "shouty ran 25 times",
        LIMIT,
        () -> get(port, "/history?job=shouty&limit=25").split("\"job\" : \"shouty\"").length > 25);
    try (Browser browser = Browser.start()) {
      browser.open("http://127.0.0.1:" + port + "/");
      Poll.until("the script filled in the page", LIMIT, () -> rendered(browser));

      browser.click("#jobs a.job-link[data-job='broken-job']");
      Poll.until(
          "broken-job's view shows its record", LIMIT, () -> shows(browser, "#job-record", "%"));
      assertThat(browser.text("#job-name")).isEqualTo("broken-job");
      assertThat(browser.script("return window.location.hash;").asText())
          .isEqualTo("#job/broken-job");
      assertThat(overview(browser))
          .as("the overview is hidden while a job's view is open")
          .isFalse();
      assertThat(browser.text("#job-success-rate")).startsWith("0% (0 of ");
      assertThat(browser.text("#job-last-success")).startsWith("none");
      assertThat(browser.text("#job-failing-since")).matches("20\\d\\d-\\d\\d-\\d\\dT.*Z");
      Poll.until("broken-job's runs are shown", LIMIT, () -> runsShown(browser, 1));
      assertThat(browser.text("#job-runs tbody")).contains("failed");
      browser.screenshot(SHOTS.resolve("status-page-job-failing.png"));

      browser.click("#job-back");
      Poll.until("the overview is back", LIMIT, () -> overview(browser));
      browser.click("#jobs a.job-link[data-job='shouty']");
      Poll.until("a page of shouty's runs", LIMIT, () -> runsShown(browser, 20));
      Poll.until("shouty's record", LIMIT, () -> shows(browser, "#job-success-rate", "100%"));
      assertThat(browser.text("#job-failing-since")).startsWith("not failing");
      assertThat(browser.text("#job-last-success")).matches("20\\d\\d-.*Z");
      String runs = browser.text("#job-runs");
      assertThat(runs)
          .as("the output is shown as text, markup and all")
          .contains("<script>window.pwned = 1</script><b>loud</b>")
          .contains("succeeded")
          .contains("page-node");
      assertThat(
              browser
                  .script(
                      "return document.querySelectorAll('#job-runs script, #job-runs b').length"
                          + " + (window.pwned === undefined ? 0 : 100);")
                  .asInt())
          .as("no element made of the output, no script run")
          .isZero();
      browser.screenshot(SHOTS.resolve("status-page-job.png"));

      List<String> first = firings(browser);
      assertThat(first).hasSize(20);
      String oldest = first.stream().min(String::compareTo).orElseThrow();
      browser.click("#job-older");
      Poll.until("an older page of runs", LIMIT, () -> runsShown(browser, 21));
      List<String> all = firings(browser);
      List<String> older = all.subList(first.size(), all.size());
      assertThat(all.subList(0, first.size())).isEqualTo(first);
      assertThat(older)
          .isNotEmpty()
          .allMatch(t -> t.compareTo(oldest) < 0, "fired before the oldest run of the first page")
          .isSortedAccordingTo(java.util.Comparator.reverseOrder());
      assertThat(browser.text("#job-runs caption"))
          .contains("back to " + older.get(older.size() - 1));
    }
  }

  @Test
  void withATokenEachJobHasATriggerButtonThatRunsItOnce() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: page-test-token-0001\n");
    try (Browser browser = Browser.start()) {
      browser.open("http://127.0.0.1:" + port + "/");
      Poll.until("the script filled in the page", LIMIT, () -> rendered(browser));
      assertThat(
              browser.script("return document.querySelectorAll('button.trigger').length;").asInt())
          .isEqualTo(3);
      browser.script(
          "document.getElementById('token').value = 'page-test-token-0001'; return null;");
      browser.click("button.trigger[data-job='morning-digest']");
      Poll.until(
          "the trigger answered",
          LIMIT,
          () -> {
            try {
              return browser.text("#trigger-result").contains("HTTP 200");
            } catch (Exception e) {
              return false;
            }
          });
      assertThat(browser.text("#trigger-result")).contains("\"outcome\" : \"succeeded\"");
      browser.screenshot(SHOTS.resolve("status-page-trigger.png"));

      browser.click("button.pause[data-job='morning-digest']");
      Poll.until(
          "the job shown paused, with a resume button",
          LIMIT,
          () -> {
            try {
              return browser.text("#jobs").contains("paused since")
                  && browser
                          .script(
                              "return document.querySelectorAll("
                                  + "\"button.resume[data-job='morning-digest']\").length;")
                          .asInt()
                      == 1;
            } catch (Exception e) {
              return false;
            }
          });
      assertThat(browser.text("#jobs")).contains("by admin@");
      browser.click("button.resume[data-job='morning-digest']");
      Poll.until(
          "the job shown resumed",
          LIMIT,
          () -> {
            try {
              return !browser.text("#jobs").contains("paused since");
            } catch (Exception e) {
              return false;
            }
          });
    }
  }
}
