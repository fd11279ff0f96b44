package dev.leasehold.app.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What a job runs: a process, an HTTP request or a Java class. */
public sealed interface JobAction {

  /**
   * A process started from an argv list, without a shell.
   *
   * @param argv program and arguments
   * @param env variables added to the inherited environment
   * @param workdir working directory, or {@code null} for the daemon's
   * @param killGrace how long after SIGTERM the process tree gets SIGKILL
   */
  record Command(List<String> argv, Map<String, String> env, Path workdir, Duration killGrace)
      implements JobAction {
    public Command {
      argv = List.copyOf(argv);
      env = Map.copyOf(env);
    }
  }

  /**
   * An HTTP request; a 2xx status is success.
   *
   * @param timeout the request timeout
   * @param leaseholdHeaders the names of the headers that carry the run's job, fire-time, fence and
   *     node (keys of {@link #DEFAULT_LEASEHOLD_HEADERS}, all four present)
   * @param followAnyRedirect {@code follow-redirects: any}: redirects to other origins are followed
   *     too (else only to the same origin, or from http to https on the same host)
   */
  record Http(
      String method,
      URI url,
      Map<String, String> headers,
      String body,
      Duration timeout,
      Map<String, String> leaseholdHeaders,
      boolean followAnyRedirect)
      implements JobAction {
    /** The headers every request carries unless {@code http.leasehold-headers} renames them. */
    public static final Map<String, String> DEFAULT_LEASEHOLD_HEADERS =
        Map.of(
            "job", "X-Leasehold-Job",
            "fire-time", "X-Leasehold-Fire-Time",
            "fence", "X-Leasehold-Fence",
            "node", "X-Leasehold-Node");

    public Http {
      headers = Map.copyOf(headers);
      leaseholdHeaders = Map.copyOf(leaseholdHeaders);
    }

    /** Following redirects to the same origin only. */
    public Http(
        String method,
        URI url,
        Map<String, String> headers,
        String body,
        Duration timeout,
        Map<String, String> leaseholdHeaders) {
      this(method, url, headers, body, timeout, leaseholdHeaders, false);
    }

    /** With the default names of the Leasehold headers. */
    public Http(
        String method, URI url, Map<String, String> headers, String body, Duration timeout) {
      this(method, url, headers, body, timeout, DEFAULT_LEASEHOLD_HEADERS);
    }
  }

  /** A class implementing {@link dev.leasehold.core.job.Job} with a public no-arg constructor. */
  record JavaClass(String className) implements JobAction {}
}
