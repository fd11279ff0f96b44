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
   */
  record Http(String method, URI url, Map<String, String> headers, String body, Duration timeout)
      implements JobAction {
    public Http {
      headers = Map.copyOf(headers);
    }
  }

  /** A class implementing {@link dev.leasehold.core.job.Job} with a public no-arg constructor. */
  record JavaClass(String className) implements JobAction {}
}
