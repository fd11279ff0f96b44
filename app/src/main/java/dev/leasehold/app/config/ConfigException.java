package dev.leasehold.app.config;

/**
 * A bad configuration, reported as one line: the file, where in it (a field path such as {@code
 * jobs[2].cron} or {@code line 7}) and what is wrong. The CLI prints {@link #getMessage()} and
 * exits with code 2; no stack trace is ever shown for it.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final String where;
  private final String problem;

  public ConfigException(String file, String where, String problem) {
    super(oneLine(file, where, problem), null, false, false);
    this.file = file;
    this.where = where;
    this.problem = problem;
  }

  /** The file as the user named it. */
  public String file() {
    return file;
  }

  /**
   * The field path ({@code jobs[2].cron}) or {@code line N}, or {@code null} for the whole file.
   */
  public String where() {
    return where;
  }

  public String problem() {
    return problem;
  }

  private static String oneLine(String file, String where, String problem) {
    String text = file + ": " + (where == null || where.isEmpty() ? "" : where + ": ") + problem;
    return text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }
}
