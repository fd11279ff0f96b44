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
            + "    command: [\"true\"]\n");
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
          String page = get(port, "/");
          return page.contains("</span> succeeded</li>") && page.contains("</span> failed</li>");
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
      String jobs = browser.text("#jobs");
      assertThat(jobs).contains("ok-job", "broken-job", "morning-digest");
      assertThat(browser.text("#jobs tr[data-job='morning-digest'] td.next"))
          .contains("06:30:00 Asia/Shanghai")
          .contains("22:30:00 UTC");
      assertThat(browser.text("#jobs tr[data-job='ok-job']")).contains("succeeded");
      assertThat(browser.text("#jobs tr[data-job='broken-job']")).contains("failed");
      assertThat(browser.text("#store-health")).isEqualTo("store answering");
      assertThat(browser.text("#nodes")).contains("page-node (this node)");
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
    }
  }

  @Test
  void withATokenEachJobHasATriggerButtonThatRunsItOnce() throws Exception {
    int port = start("admin:\n  listen: 127.0.0.1:0\n  token: page-test-token\n");
    try (Browser browser = Browser.start()) {
      browser.open("http://127.0.0.1:" + port + "/");
      assertThat(
              browser.script("return document.querySelectorAll('button.trigger').length;").asInt())
          .isEqualTo(3);
      browser.script("document.getElementById('token').value = 'page-test-token'; return null;");
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
    }
  }
}
